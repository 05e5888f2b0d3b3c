"""CUDA C++ submissions judged in the real sandbox image (Docker; CI=true fails instead of
skipping): the model answer of problem 82 is AC there (g++ and the sanitizers in the image, the
emulation's files beside the runner), and hostile compiler inputs each end CE or RE with a clear
message, never IE: an #include of a host file, inline assembly, a kernel that replaces its own
process, one that prints forever, one that never ends (a TLE after the problem's 20 s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.grader.contracts import CPU_EMULATION_NOTE, JudgeResult, Mode, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
SLUG = "082-row-sum-block-reduction"
SIGNATURE = 'extern "C" void solve(const float* x, float* out, int rows, int cols)'

# name: (source, the verdicts it may get, a word its messages hold). The sandbox's environment
# is the runner's own (nothing of the host's), empty or NUL-separated: it compiles or it does not.
HOSTILE = {
    "include_passwd": ('#include "/etc/passwd"\n' + SIGNATURE + " {}\n", {Verdict.CE}, "compile"),
    "include_environ": ('#include "/proc/self/environ"\n' + SIGNATURE + " {}\n",
                        {Verdict.CE, Verdict.WA}, ""),
    "inline_asm": ("__global__ void k(float* out) { asm(\"nop\"); out[0] = 1; }\n"
                   + SIGNATURE + " { k<<<1, 1>>>(out); }\n", {Verdict.CE}, "inline assembly"),
    "exec_a_shell": ("#include <unistd.h>\n" + SIGNATURE
                     + ' { execl("/bin/sh", "sh", "-c", "exit 0", (char*) 0); }\n',
                     {Verdict.RE}, "without returning"),
    "print_forever": ("#include <cstdio>\n__global__ void k() { for (;;) printf(\"spam spam\\n\"); }\n"
                      + SIGNATURE + " { k<<<1, 1>>>(); }\n", {Verdict.RE, Verdict.OLE}, "printed too much"),
    "a_kernel_that_never_ends": ("__global__ void k() { volatile unsigned s = 0; for (;;) s = s + 1u; }\n"
                                 + SIGNATURE + " { k<<<1, 1>>>(); }\n", {Verdict.TLE}, "stopped"),
}


@pytest.fixture(scope="module")
def row_sum() -> ProblemPackage:
    return load_package(ROOT / "problems" / SLUG)


@pytest.fixture(scope="module")
def backend(docker_client: Any, sandbox_image: str) -> Backend:
    return get_backend("docker", image=sandbox_image)


def judge(package: ProblemPackage, source: str, backend: Backend, mode: Mode) -> JudgeResult:
    from sandbox.grader.entry import judge as run  # noqa: PLC0415

    return run(package, source, mode=mode, backend=backend, secret_seed=7)


def test_the_model_answer_is_ac_in_the_sandbox_image(
    row_sum: ProblemPackage, backend: Backend
) -> None:
    result = judge(row_sum, (row_sum.path / "solution.cu").read_text(), backend, Mode.SUBMIT)
    assert result.verdict == Verdict.AC, (result.message, [t.message for t in result.tests][:2])
    assert result.message == CPU_EMULATION_NOTE and result.benchmark is None


def test_an_out_of_bounds_read_is_an_re_naming_the_index(
    row_sum: ProblemPackage, backend: Backend
) -> None:
    source = (row_sum.path / "solutions" / "RE" / "column_bound_inclusive.cu").read_text()
    result = judge(row_sum, source, backend, Mode.RUN)
    assert result.verdict == Verdict.RE, result.message
    assert any("out-of-bounds read of x[" in t.message for t in result.tests)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_compiler_input_is_refused_clearly(
    row_sum: ProblemPackage, backend: Backend, name: str
) -> None:
    source, verdicts, word = HOSTILE[name]
    result = judge(row_sum, source, backend, Mode.RUN)
    text = result.message + "\n".join(t.message for t in result.tests)
    assert result.verdict in verdicts, text
    assert word in text, text

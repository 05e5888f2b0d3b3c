"""CUDA C++ submissions judged in the real sandbox image (Docker; CI=true fails instead of
skipping): the model answer of problem 82 is AC there (g++ and the sanitizers in the image, the
emulation's files beside the runner, its core prebuilt), and hostile compiler inputs each end CE,
RE or TLE with a clear message, never IE, and none leaks the worker's paths or environment: an
#include of a host file or of the worker's own checkout, inline assembly (also spelled by token
pasting), inline system calls (one that kills the runner), a template that never finishes
compiling (CE at the 30 s compile limit), a gigantic compiler log (cut, and said so), a gigantic
object (the file-size cap or the sandbox's disk), a kernel that replaces its own process, one
that prints forever, one that never ends (a TLE after the problem's limit).
"""

from __future__ import annotations

import os
import secrets
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

SPIN = (  # 800 constant evaluations of 4M steps each (seconds apiece), each under GCC's per-
    # evaluation operation limit, so that nothing stops the compile but our time limit
    "constexpr long burn(long seed) {\n"
    "  long s = seed;\n"
    "  for (long i = 0; i < 2000; ++i)\n"
    "    for (long j = 0; j < 2000; ++j) s += i ^ j;\n"
    "  return s;\n"
    "}\n"
    "template <int N> struct Spin { static constexpr long v = burn(N) + Spin<N - 1>::v; };\n"
    "template <> struct Spin<0> { static constexpr long v = 0; };\n"
    "constexpr long forever = Spin<800>::v;\n")
WARN = '#warning "' + "spam " * 800 + '"\n'  # 4 kB a time, included into itself 200 deep
PASTED_ASM = ("#define CAT(a, b) a##b\n" + SIGNATURE  # exit_group(0): no asm word to refuse
              + ' { CAT(as, m) volatile("mov $231, %%eax; xor %%edi, %%edi; syscall" ::: '
              '"rax", "rdi"); }\n')
CANARY = "TJ_HOSTILE_CANARY"  # set in the worker's environment: no message may hold its value

# name: (source, the verdicts it may get, a word its messages hold). The sandbox's environment
# is the runner's own (nothing of the host's), empty or NUL-separated: it compiles or it does not.
HOSTILE = {
    "include_the_workers_checkout": (f'#include "{ROOT / "problems" / SLUG / "solution.cu"}"\n',
                                     {Verdict.CE}, "No such file"),
    "template_never_finishes_compiling": (SPIN + SIGNATURE + " { out[0] = forever; }\n",
                                          {Verdict.CE}, "compilation took longer than 30 s"),
    "gigantic_compiler_log": (WARN + "#include __FILE__\n" + SIGNATURE + " {}\n", {Verdict.CE},
                              "[output cut at 12288 bytes]"),
    "gigantic_object": ("__device__ float table[1 << 28] = {1.0f};\n" + SIGNATURE
                        + " { out[0] = table[rows]; }\n", {Verdict.CE}, "gigantic object"),
    "syscall_kills_the_runner": ("#include <csignal>\n#include <unistd.h>\n#include <sys/syscall.h>\n"
                                 + SIGNATURE + " { syscall(SYS_kill, getppid(), SIGKILL); }\n",
                                 {Verdict.RE}, ""),
    "pasted_asm_exit_group": (PASTED_ASM, {Verdict.RE}, "without returning"),
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
    # The call's own stop ("longer than 5 s ... stopped") or the grader's CPU-time limit ("used
    # more than 5 s of CPU time"), whichever comes first: both name the problem's limit.
    "a_kernel_that_never_ends": ("__global__ void k() { volatile unsigned s = 0; for (;;) s = s + 1u; }\n"
                                 + SIGNATURE + " { k<<<1, 1>>>(); }\n", {Verdict.TLE}, "than 5 s"),
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
    assert any("out-of-bounds read of x[" in t.message for t in result.tests), [
        f"{t.name}={t.verdict}: {t.message[:300]}" for t in result.tests]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_compiler_input_is_refused_clearly(
    row_sum: ProblemPackage, backend: Backend, name: str
) -> None:
    source, verdicts, word = HOSTILE[name]
    canary = f"canary-{secrets.token_hex(8)}"
    os.environ[CANARY] = canary
    try:
        result = judge(row_sum, source, backend, Mode.RUN)
    finally:
        del os.environ[CANARY]
    text = result.message + "\n".join(t.message for t in result.tests)
    assert result.verdict in verdicts, text
    assert word in text, text
    assert canary not in text and len(result.message) < 20_000, text[:2000]
    reference = (row_sum.path / "solution.cu").read_text().splitlines()
    leaked = [line for line in reference if len(line.strip()) > 30 and line not in source
              and line in text]  # the model answer is nowhere in the sandbox
    assert not leaked, leaked
    if name != "include_the_workers_checkout":  # there the path is the student's own text
        assert str(ROOT) not in text, text[:2000]

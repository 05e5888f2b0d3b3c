"""C++ and CUDA C++ practice packages judged in the real sandbox image (Docker; CI=true fails
instead of skipping): the harness is compiled with the student's file inside the sandbox (g++
and the sanitizers of the image, the CUDA emulation beside the runner). A model answer is AC, an
out-of-bounds write RE naming AddressSanitizer and the student's line, a data race under
ThreadSanitizer RE, a CUDA harness AC with the CPU emulation's note. The folders are our toys
(tests/fixtures/practice_native/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.grader.contracts import CPU_EMULATION_NOTE, JudgeResult, Mode, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend
from sandbox.practice import folder as practice_folder
from sandbox.practice import harness as practice_harness

pytestmark = pytest.mark.docker

BOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "practice_native" / "practice" / "problems"
CASES = {
    "toy-cpp-prefix-sum": ["example_small", "empty", "long_run"],
    "toy-cpp-counter": ["example_one_thread", "four_threads"],
    "toy-cu-scale": ["example_ten", "ragged_tail", "one_block"],
}


@pytest.fixture(scope="module")
def backend(docker_client: Any, sandbox_image: str) -> Backend:
    return get_backend("docker", image=sandbox_image)


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ProblemPackage]:
    out = {}
    for number, (slug, cases) in enumerate(CASES.items(), start=901):
        book = "cuda" if slug.startswith("toy-cu-") else "cpp"
        folder = practice_folder.read_folder(BOOKS / book / slug)
        target = practice_folder.write_package(folder, tmp_path_factory.mktemp(slug), number)
        practice_harness.record_cases(target, cases)
        out[slug] = load_package(target)
    return out


def judge(package: ProblemPackage, source: str, backend: Backend) -> JudgeResult:
    from sandbox.grader.entry import judge as run  # noqa: PLC0415

    return run(package, source, mode=Mode.SUBMIT, backend=backend, secret_seed=7)


def test_a_cpp_model_answer_is_ac_and_an_overflow_is_re_with_the_line(
    packages: dict[str, ProblemPackage], backend: Backend
) -> None:
    package = packages["toy-cpp-prefix-sum"]
    result = judge(package, (BOOKS / "cpp" / "toy-cpp-prefix-sum" / "solution.cpp").read_text(), backend)
    assert result.verdict == Verdict.AC, (result.message, [t.message for t in result.tests])
    overflow = (BOOKS / "cpp" / "toy-cpp-prefix-sum" / "solution.cpp").read_text().replace(
        "i < xs.size()", "i <= xs.size()")
    result = judge(package, overflow, backend)
    assert result.verdict == Verdict.RE
    assert "AddressSanitizer: heap-buffer-overflow at user.cpp line 7" in result.tests[0].message


def test_a_data_race_is_re_under_thread_sanitizer(
    packages: dict[str, ProblemPackage], backend: Backend
) -> None:
    package = packages["toy-cpp-counter"]
    result = judge(package, (BOOKS / "cpp" / "toy-cpp-counter" / "starter.cpp").read_text(), backend)
    assert result.verdict == Verdict.RE, [t.message for t in result.tests]
    assert any("ThreadSanitizer: data race" in t.message for t in result.tests)


def test_a_cuda_harness_is_judged_on_the_emulation(
    packages: dict[str, ProblemPackage], backend: Backend
) -> None:
    package = packages["toy-cu-scale"]
    result = judge(package, (BOOKS / "cuda" / "toy-cu-scale" / "solution.cu").read_text(), backend)
    assert result.verdict == Verdict.AC, (result.message, [t.message for t in result.tests])
    assert result.message == CPU_EMULATION_NOTE

"""A CUDA C++ package judged through the one judging loop (sandbox.grader.entry.judge) on the
local backend: the runner compiles the student's .cu inside the sandbox for the CPU emulation and
runs the package's bindings.py with ``launch`` bound; the tensor kind compares as for Python.

Problem 82 (per-row sums): its model answer is AC with the CPU note and no benchmark, the missing
barrier is a WA (the emulation's race report), the inclusive bound an RE naming the buffer and the
index, a syntax error a CE naming the student's own line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.grader.contracts import CPU_EMULATION_NOTE, JudgeResult, Mode, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend

ROOT = Path(__file__).resolve().parents[3]
SLUG = "082-row-sum-block-reduction"


@pytest.fixture(scope="module")
def row_sum() -> ProblemPackage:
    return load_package(ROOT / "problems" / SLUG)


def judge(package: ProblemPackage, source: str, backend: Backend, mode: Mode) -> JudgeResult:
    from sandbox.grader.entry import judge as run  # noqa: PLC0415

    return run(package, source, mode=mode, backend=backend, secret_seed=7)


def test_the_package_reads_its_language(row_sum: ProblemPackage) -> None:
    assert row_sum.language == "cuda" and row_sum.suffix == ".cu"
    assert row_sum.starter_file.name == "starter.cu" and row_sum.answer_file.name == "solution.cu"
    assert "launch(" in row_sum.bindings and "__global__" in row_sum.starter_code
    tagged = {f"{v}/{f.name}" for v, f in row_sum.solutions()}
    assert "WA/missing_syncthreads.cu" in tagged and all(t.endswith(".cu") for t in tagged)


def test_the_model_answer_is_ac_on_cpu_without_a_benchmark(
    row_sum: ProblemPackage, local_backend: Backend
) -> None:
    result = judge(row_sum, (row_sum.path / "solution.cu").read_text(), local_backend, Mode.SUBMIT)
    assert result.verdict == Verdict.AC, result.message
    assert result.message == CPU_EMULATION_NOTE and result.benchmark is None
    assert any(not t.public for t in result.tests)


@pytest.mark.parametrize(
    ("file", "verdict", "words"),
    [
        ("solutions/WA/missing_syncthreads.cu", Verdict.WA, ("race", "row_sum_kernel")),
        ("solutions/RE/column_bound_inclusive.cu", Verdict.RE, ("out-of-bounds read of x[",)),
    ],
)
def test_a_wrong_kernel_gets_its_verdict_and_says_why(
    row_sum: ProblemPackage, local_backend: Backend, file: str, verdict: Verdict,
    words: tuple[str, ...],
) -> None:
    result = judge(row_sum, (row_sum.path / file).read_text(), local_backend, Mode.RUN)
    assert result.verdict == verdict, result.message
    first = next(t for t in result.tests if t.verdict == verdict)
    for word in words:
        assert word in first.message, first.message


def test_a_compile_error_names_the_students_line(
    row_sum: ProblemPackage, local_backend: Backend
) -> None:
    lines = (row_sum.path / "solution.cu").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "__global__" in line) + 2
    lines.insert(at - 1, "    int broken = ;")
    result = judge(row_sum, "\n".join(lines) + "\n", local_backend, Mode.RUN)
    assert result.verdict == Verdict.CE, result.message
    assert "did not compile" in result.message and f"submission.cu:{at}:" in result.message
    assert "/tmp" not in result.message  # the sandbox's paths are not the student's business
    assert all(t.verdict == Verdict.SK for t in result.tests)

"""The practice kind through the one judging loop (sandbox/grader/judging.py + sandbox/grader/kinds/practice.py),
judged in the local backend with the toy folder: each verdict a student's file can earn, what a
Run selects, what the progress callback sees, and that the loop's fatal rules (a file that does
not load, a test that runs out of time) end the judging as they do for the tensor kind."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from sandbox.grader.contracts import Mode, TestResult, Verdict
from sandbox.grader.entry import judge  # the kinds registered, as every caller has them
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.local import LocalBackend
from sandbox.practice import folder as practice_folder

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "practice" / "toy-running-stats"
SOLUTION = (TOY / "solution.py").read_text()
STARTER = (TOY / "starter.py").read_text()


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> ProblemPackage:
    out = tmp_path_factory.mktemp("toy-kind")
    return load_package(practice_folder.write_package(practice_folder.read_folder(TOY), out / "p", 7))


def run(package: ProblemPackage, source: str, mode: Mode = Mode.SUBMIT, **kw: object) -> object:
    return judge(package, source, mode=mode, backend=LocalBackend(), **kw)  # type: ignore[arg-type]


def test_the_reference_is_ac_on_every_test_and_progress_sees_each(toy: ProblemPackage) -> None:
    seen: list[TestResult] = []
    result = run(toy, SOLUTION, on_progress=seen.append)
    assert result.verdict == Verdict.AC, result  # type: ignore[attr-defined]
    tests = result.tests  # type: ignore[attr-defined]
    # Every test is AC but one the channel cannot carry (a set), which says so and is skipped.
    assert {t.name: t.verdict for t in tests if t.verdict != Verdict.AC} == {
        "test_total_of_a_set": Verdict.SK
    }
    assert "not judged here" in next(t.message for t in tests if t.verdict == Verdict.SK)
    assert [t.name for t in seen] == [t.name for t in tests]
    assert any(not t.public for t in tests) and any(t.public for t in tests)


def test_a_run_judges_the_public_tests_only(toy: ProblemPackage) -> None:
    result = run(toy, SOLUTION, mode=Mode.RUN)
    assert result.verdict == Verdict.AC  # type: ignore[attr-defined]
    assert all(t.public for t in result.tests)  # type: ignore[attr-defined]


def test_a_wrong_value_is_wa_with_the_checkers_words(toy: ProblemPackage) -> None:
    wrong = SOLUTION.replace("return (x - mu) / np.sqrt(var + eps)", "return x - mu")
    assert wrong != SOLUTION
    result = run(toy, wrong)
    assert result.verdict == Verdict.WA  # type: ignore[attr-defined]
    first = next(t for t in result.tests if t.name == "test_example_normalize")  # type: ignore[attr-defined]
    assert first.verdict == Verdict.WA and first.message
    others = [t for t in result.tests if t.name == "test_running_mean_keeps_state"]  # type: ignore[attr-defined]
    assert others and others[0].verdict == Verdict.AC  # one wrong function fails its tests only


def test_an_exception_in_the_students_code_is_re_with_its_traceback(toy: ProblemPackage) -> None:
    broken = SOLUTION.replace("    mu = x.mean(-1, keepdims=True)\n",
                              "    mu = x.mean(-1, keepdims=True)\n    raise ZeroDivisionError('mine')\n", 1)
    result = run(toy, broken)
    first = next(t for t in result.tests if t.name == "test_example_normalize")  # type: ignore[attr-defined]
    assert first.verdict == Verdict.RE
    assert "ZeroDivisionError" in first.message and "mine" in first.message


def test_a_file_that_does_not_compile_is_ce_and_nothing_runs(toy: ProblemPackage) -> None:
    result = run(toy, "def normalize(x:\n")
    assert result.verdict == Verdict.CE  # type: ignore[attr-defined]
    assert all(t.verdict == Verdict.SK for t in result.tests)  # type: ignore[attr-defined]


def test_the_starter_is_never_ac(toy: ProblemPackage) -> None:
    assert run(toy, STARTER, mode=Mode.RUN).verdict != Verdict.AC  # type: ignore[attr-defined]


def test_a_test_that_runs_out_of_time_is_tle_and_the_rest_are_skipped(toy: ProblemPackage) -> None:
    spin = SOLUTION.replace("def total(values):\n", "def total(values):\n    while True:\n        pass\n")
    quick = dataclasses.replace(toy, limits=dataclasses.replace(toy.limits, time_s=1.0))
    result = run(quick, spin)
    assert result.verdict == Verdict.TLE  # type: ignore[attr-defined]
    names = [t.name for t in result.tests]  # type: ignore[attr-defined]
    timed_out = next(t for t in result.tests if t.verdict == Verdict.TLE)  # type: ignore[attr-defined]
    after = result.tests[names.index(timed_out.name) + 1:]  # type: ignore[attr-defined]
    assert all(t.verdict == Verdict.SK for t in after)

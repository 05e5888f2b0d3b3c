"""A practice submission's tricks against the verdict rules (issue: a student's exception named
``Skip`` made every test skipped, and skipped counted as passed: a free AC). Only the grader's
rules decide a verdict: an exception of the student's code is RE whatever its name or base, a
skip is only the checker's own ``Skip`` raised by the package's test code, and a judging whose
every test was skipped is never AC. Judged with the toy practice folder in the local backend
(the rules live in the grader, whichever backend runs the student's file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.grader.contracts import NOTHING_JUDGED, Mode, Verdict, overall_verdict
from sandbox.grader.contracts import TestResult as Outcome
from sandbox.grader.entry import judge as judge_practice
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.local import LocalBackend
from sandbox.practice import folder as practice_folder

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "practice" / "toy-running-stats"
SOLUTION = (TOY / "solution.py").read_text()


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> ProblemPackage:
    out = tmp_path_factory.mktemp("toy")
    return load_package(practice_folder.write_package(practice_folder.read_folder(TOY), out / "p", 5))


def _raising(body: str) -> str:
    """The reference with ``normalize`` replaced by one that runs ``body`` first."""
    return SOLUTION + "\n\n_real_normalize = normalize\n\n\ndef normalize(x, eps=1e-6):\n" + "".join(
        f"    {line}\n" for line in body.splitlines()
    ) + "    return _real_normalize(x, eps)\n"


TRICKS = {
    "an exception named Skip": "class Skip(Exception):\n    pass\nraise Skip('skipped by the student')",
    "a subclass of a class named Skip": (
        "class Skip(Exception):\n    pass\nclass MySkip(Skip):\n    pass\nraise MySkip('no')"
    ),
    "an exception named like the checker's module": (
        "Skip = type('Skip', (AssertionError,), {'__module__': 'checker'})\nraise Skip('x')"
    ),
    "SystemExit inside a test": "raise SystemExit(0)",
    "KeyboardInterrupt inside a test": "raise KeyboardInterrupt()",
    "output that imitates the channel": (
        "import sys, struct, json\n"
        "body = json.dumps({'ok': True, 'printed': 0, 'obs': {'kind': 'return', 'value': None}}).encode()\n"
        "payload = struct.pack('>I', len(body)) + body\n"
        "sys.stdout.buffer.write(b'TJF1' + struct.pack('>I', len(payload)) + payload)\n"
        "sys.stdout.flush()\n"
        "raise ValueError('after a forged frame')"
    ),
}


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_a_students_exception_never_skips_a_test(toy: ProblemPackage, trick: str) -> None:
    result = judge_practice(toy, _raising(TRICKS[trick]), mode=Mode.SUBMIT, backend=LocalBackend())
    assert result.verdict != Verdict.AC, (trick, result)
    first = next(t for t in result.tests if t.name == "test_example_normalize")
    assert first.verdict in (Verdict.RE, Verdict.WA), (trick, first)
    assert not any(t.verdict == Verdict.SK and "skipped: " in t.message and "earlier" not in t.message
                   for t in result.tests), trick


def test_the_reference_still_passes_and_a_test_of_the_package_may_still_skip(
    toy: ProblemPackage, tmp_path: Path
) -> None:
    assert judge_practice(toy, SOLUTION, mode=Mode.SUBMIT, backend=LocalBackend()).verdict == Verdict.AC
    folder = tmp_path / "in" / "toy-running-stats"
    import shutil

    shutil.copytree(TOY, folder)
    with (folder / "test.py").open("a") as tests:
        tests.write("\n\nfrom checker import skip\n\n\ndef test_needs_a_gpu():\n    skip('no GPU here')\n")
    package = load_package(practice_folder.write_package(practice_folder.read_folder(folder), tmp_path / "p", 6))
    result = judge_practice(package, SOLUTION, mode=Mode.SUBMIT, backend=LocalBackend())
    skipped = [t for t in result.tests if t.name == "test_needs_a_gpu"]
    assert result.verdict == Verdict.AC and skipped and skipped[0].verdict == Verdict.SK


def test_a_judging_whose_every_test_was_skipped_is_never_ac() -> None:
    skipped = [Outcome("a", True, Verdict.SK, "skipped: no GPU"), Outcome("b", False, Verdict.SK)]
    assert overall_verdict(skipped) == Verdict.IE
    assert overall_verdict([*skipped, Outcome("c", False, Verdict.AC)]) == Verdict.AC
    assert overall_verdict([Outcome("c", False, Verdict.WA), *skipped]) == Verdict.WA
    assert overall_verdict([]) == Verdict.AC  # no tests selected (a Run of a problem without public tests)
    assert "skipped" in NOTHING_JUDGED

"""The package check of a practice problem: its solution is AC, its starter is not (solution.py
and starter.py; a C++ / CUDA C++ package's solution.cpp / .cu and starter.cpp / .cu).

Both are judged through the real path (sandbox/practice/proxies.py, Submit: every test) with the
given backend. A test that turns out unsupported while the solution runs (a callable argument
the static scan could not see, a replacement of ``solution.<name>`` that returns) is reported and
refused from then on: :func:`refuse_in_manifest` writes it into the package's problem.toml
before the starter is judged, so the package never holds a test that cannot be judged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sandbox.grader.contracts import NEUTRAL_VERDICTS, PASSING_VERDICTS, JudgeResult, Mode, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.practice import folder as practice_folder
from sandbox.practice import harness as practice_harness
from sandbox.practice import package as practice_package
from sandbox.practice import scan as practice_scan

if TYPE_CHECKING:
    from sandbox.host.backends.base import Backend


@dataclass
class PracticeCheck:
    passed: bool = False
    solution: str = ""  # the verdict of the solution (package.answer_file)
    starter: str = ""  # the verdict of the starter (package.starter_file)
    messages: list[str] = field(default_factory=list)
    refused_at_run: list[practice_scan.Unsupported] = field(default_factory=list)
    callbacks_at_run: list[practice_scan.Unsupported] = field(default_factory=list)
    package: ProblemPackage | None = None  # reloaded after a refusal was written
    # a C++ / CUDA C++ folder's (public, hidden) cases: what the solution's run printed
    cases: tuple[list[str], list[str]] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "solution": self.solution,
            "starter": self.starter,
            "messages": list(self.messages),
        }


def _summary(result: JudgeResult) -> str:
    bad = [
        f"{t.name}: {t.verdict} {t.message.splitlines()[0][:200] if t.message else ''}".strip()
        for t in result.tests
        if t.verdict not in PASSING_VERDICTS | NEUTRAL_VERDICTS
    ]
    text = "; ".join(bad[:3]) + ("; ..." if len(bad) > 3 else "")
    if result.message:
        text = (text + " - " if text else "") + result.message.strip()[-600:]
    return text


def refuse_in_manifest(package_dir: Path, items: list[practice_scan.Unsupported]) -> None:
    """Append ``[[practice.unsupported]]`` entries (action refused) to problem.toml."""
    toml = package_dir / "problem.toml"
    text = toml.read_text(encoding="utf-8")
    for item in items:
        text += (
            "\n[[practice.unsupported]]\n"
            f"test = {practice_folder.toml_str(item.test)}\n"
            f"reason = {practice_folder.toml_str(item.reason)}\n"
            'action = "refused"\n'
        )
    toml.write_text(text, encoding="utf-8")


def check_practice(
    package: ProblemPackage, backend: Backend, judge: Callable[..., JudgeResult] | None = None
) -> PracticeCheck:
    """Judge the package's solution (must be AC) and starter (must not be). ``judge``: how
    (default ``sandbox.grader.judge`` in this process; the site passes its confined grader's,
    judge_site/worker/confinement.py, since the folder's test.py is an author's code)."""
    if judge is None:
        from sandbox.grader.entry import judge as judge_here  # imports torch: only when judging

        judge = judge_here

    report = PracticeCheck(package=package)
    settings = package.practice or practice_package.PracticeSettings()
    harness = bool(settings.harness)
    if not settings.public and not harness:
        report.messages.append("test.py has no test_example* (public) test")
    solution = package.answer_file.read_text(encoding="utf-8")
    result = judge(package, solution, mode=Mode.SUBMIT, backend=backend)
    report.solution = str(result.verdict)
    if harness:  # its cases are what the solution's run printed: recorded in the package
        practice_harness.record_cases(package.path, result.environment.get("practice_cases", []))
        package = report.package = load_package(package.path)
        settings = package.practice or practice_package.PracticeSettings()
        report.cases = ([n for n in settings.tests if n in settings.public],
                        [n for n in settings.tests if n not in settings.public])
    static = {u.test for u in practice_package.read_folder_tests_unsupported(package.path)}
    for name in result.environment.get("practice_callbacks", []):
        if name not in static and name != "import":
            report.callbacks_at_run.append(practice_scan.Unsupported(
                str(name), "hands a function of the test to the student's code: run as a "
                "callback (found when the check ran it)", "fallback"))
    for item in result.environment.get("practice_unsupported", []):
        report.refused_at_run.append(
            practice_scan.Unsupported(str(item["test"]), str(item["reason"]), "refused")
        )
    if report.refused_at_run:
        refuse_in_manifest(package.path, report.refused_at_run)
        package = load_package(package.path)
        report.package = package
        report.messages.append(
            "refused at run time: "
            + ", ".join(f"{u.test} ({u.reason})" for u in report.refused_at_run)
        )
    judged = (package.practice or practice_package.PracticeSettings()).judged()
    if not judged:
        report.messages.append("every test is unsupported: nothing would be judged")
    if result.verdict != Verdict.AC:
        report.messages.append(f"{package.answer_file.name} is not accepted by its own tests: "
                               f"{_summary(result)}")
    if result.verdict != Verdict.AC:  # the package is refused already: spare the second judging
        return report
    starter = package.starter_file.read_text(encoding="utf-8")
    result = judge(package, starter, mode=Mode.SUBMIT, backend=backend)
    report.starter = str(result.verdict)
    if result.verdict == Verdict.AC:
        report.messages.append(f"{package.starter_file.name} is accepted: it must fail at "
                               "least one test")
    elif result.verdict == Verdict.IE:
        report.messages.append(f"{package.starter_file.name}: internal error: {_summary(result)}")
    report.passed = (
        report.solution == Verdict.AC
        and report.starter not in (Verdict.AC, Verdict.IE)
        and bool(judged)
        and bool(settings.public)
    )
    return report


def check_items(package: ProblemPackage, backend: Backend) -> list[tuple[str, bool, str]]:
    """The check as (name, ok, detail) items, for sandbox/grader/check.py's report."""
    report = check_practice(package, backend)
    items = [
        (f"reference ({package.answer_file.name}) is AC", report.solution == Verdict.AC,
         report.solution),
        ("starter fails", report.starter not in (Verdict.AC, Verdict.IE), report.starter),
    ]
    items += [
        (f"practice: {u.test} refused at run time", True, u.reason) for u in report.refused_at_run
    ]
    if not report.passed:
        items.append(("practice check", False, "; ".join(report.messages)))
    return items

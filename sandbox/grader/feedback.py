"""What a student is told about one test: full detail for public tests, filtered for hidden ones.

A public WA names the worst element (index, expected, got, absolute and relative error) and how
many elements differ; an RE shows the traceback trimmed to the student's own frames. A hidden
test says only what the package's ``feedback_hidden`` policy allows: the verdict, a short
category ("wrong answer: dtype"), or everything.

The grader keeps every test whole (hidden ones included, for staff); this filter is applied
where a result is shown to a student (``for_student``, ``result_for_student``,
``tests_for_student``), and ``feedback_lines`` turns a shown test into the lines every page
renders. The verdict words are sandbox/grader/contracts.py's VERDICT_TEXT.
"""

from __future__ import annotations

import builtins
import dataclasses
from typing import Any

from sandbox.grader.contracts import (
    REJECTED_NEXT,
    VERDICT_WORDS,
    FeedbackPolicy,
    JudgeResult,
    TestResult,
    Verdict,
    WrongKind,
    rejected_because,
)


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def worst_element_line(details: dict[str, Any]) -> str | None:
    """"worst element at index [i, j]: expected x, got y (abs error a, rel error r)", or None
    when the details name no worst element. The site renders stored details with it too."""
    if details.get("index") is None or "expected" not in details:
        return None
    line = (
        f"worst element at index {details['index']}: expected {_num(details['expected'])}, "
        f"got {_num(details.get('got'))}"
    )
    if details.get("abs_error") is not None:
        line += f" (abs error {_num(details['abs_error'])}"
        if details.get("rel_error") is not None:
            line += f", rel error {_num(details['rel_error'])}"
        line += ")"
    return line


def explain(message: str, details: dict[str, Any]) -> str:
    """The full message of a test: the comparison's message plus the worst element or the
    traceback, as a student reads it."""
    lines = [message] if message else []
    worst = worst_element_line(details)
    if worst is not None:
        lines.append(worst)
        if "atol" in details:
            lines.append(f"tolerance: atol={details['atol']:g}, rtol={details['rtol']:g}")
    if details.get("traceback"):
        lines.append(str(details["traceback"]))
    return "\n".join(lines)


def feedback_lines(test: Any) -> list[dict[str, str]]:
    """The feedback of one stored test (``TestResult.to_json()``, as shown) as lines of text
    with a class ("worst", "traceback" or ""): the engine's message first, then whatever of
    the worst element, the counts and the traceback the message does not already say. Computed
    once, here: the page's template (the ``feedback_lines`` filter) and its script (the API's
    ``feedback`` of each test) render these very lines."""
    if not isinstance(test, dict):
        return []
    message = str(test.get("message") or "")
    details = test.get("details") or {}
    if not isinstance(details, dict):
        details = {}
    if test.get("verdict") == Verdict.AC and message in ("", VERDICT_WORDS[Verdict.AC]):
        return []
    lines = [
        {"text": line, "cls": "worst" if line.startswith("worst element") else ""}
        for line in message.splitlines()
    ]
    worst = worst_element_line(details)
    if worst is not None and "worst element" not in message:
        lines.append({"text": worst, "cls": "worst"})
    if "elements differ" not in message and details.get("mismatched") is not None:
        lines.append(
            {"text": f"{details['mismatched']} of {details.get('total')} elements differ", "cls": ""}
        )
    traceback = details.get("traceback")
    if traceback and str(traceback) not in message:
        lines.append({"text": str(traceback), "cls": "traceback"})
    return lines


def _builtin_exception(name: Any) -> bool:
    cls = getattr(builtins, name, None) if isinstance(name, str) else None
    return isinstance(cls, type) and issubclass(cls, BaseException)


def category(verdict: Verdict, wrong_kind: WrongKind | None, details: dict[str, Any]) -> str:
    """The short category of a hidden test. An exception is named only when it is one of
    Python's own: the name of a class the student made up could carry the hidden inputs out."""
    words = VERDICT_WORDS.get(verdict, str(verdict))
    if verdict == Verdict.WA and wrong_kind is not None:
        return f"{words}: {wrong_kind.value.replace('_', ' ')}"
    if verdict == Verdict.RE and details.get("exception"):
        name = details["exception"]
        return f"{words}: {name if _builtin_exception(name) else 'an exception of your own'}"
    return words


def for_student(result: TestResult, policy: FeedbackPolicy) -> TestResult:
    """``result`` as the student may see it. Public tests pass unchanged; the FULL policy shows
    a hidden test whole but for a picture of its values (``compare``: the grader draws none for
    a hidden test, and one stored anyway is dropped here).
    A hidden test keeps no time either: code that sleeps in proportion to an input value would
    read the hidden inputs out of it, many bits per test."""
    if result.public or result.verdict == Verdict.SK:
        return result
    if policy == FeedbackPolicy.FULL:  # all a public test says, but never a picture of values
        return dataclasses.replace(result, compare=None) if result.compare is not None else result
    if policy == FeedbackPolicy.CATEGORY:
        message = category(result.verdict, result.wrong_kind, result.details)
        return TestResult(
            name=result.name,
            public=False,
            verdict=result.verdict,
            message=message,
            wrong_kind=result.wrong_kind,
        )
    return TestResult(
        name=result.name,
        public=False,
        verdict=result.verdict,
        message=VERDICT_WORDS.get(result.verdict, ""),
    )


def result_for_student(result: JudgeResult, policy: FeedbackPolicy) -> JudgeResult:
    """The complete ``result`` as a student may see it: each test through ``for_student``,
    no secret seed."""
    return dataclasses.replace(
        result, tests=[for_student(t, policy) for t in result.tests], secret_seed=None
    )


def tests_for_student(tests: list[dict[str, Any]], policy: FeedbackPolicy) -> list[dict[str, Any]]:
    """Stored tests (``TestResult.to_json()`` each) as a student may see them."""
    return [for_student(TestResult.from_json(t), policy).to_json() for t in tests]


def format_result(result: JudgeResult) -> str:
    """A judging as a person reads it in a terminal: one line per test, then the benchmark."""
    lines = [f"verdict: {result.verdict} ({VERDICT_WORDS.get(result.verdict, '')})"]
    if result.message:
        lines.append(result.message)
    for test in result.tests:
        where = "public" if test.public else "hidden"
        timing = f" {test.time_ms:.1f} ms" if test.time_ms is not None else ""
        lines.append(f"  [{test.verdict:>3}] {test.name} ({where}){timing}")
        if test.message and test.verdict != Verdict.AC:
            lines.extend(f"        {line}" for line in test.message.splitlines())
    bench = result.benchmark
    if bench is not None and bench.speedup is not None and bench.submission_ms is not None:
        lines.append(
            f"benchmark: speedup x{bench.speedup:.3f} (yours {bench.submission_ms:.4f} ms, "
            f"baseline {bench.baseline_ms:.4f} ms, {bench.repetitions} repetitions)"
        )
        if bench.note:
            lines.append(f"  {bench.note}")
    elif bench is not None:  # rejected: no figure, and why
        lines.append(
            f"benchmark: timing rejected, no speedup (baseline {bench.baseline_ms:.4f} ms): "
            + "; ".join(rejected_because(bench.rule))
        )
        if REJECTED_NEXT not in bench.note:  # the grader's note ends with it (rejected_note)
            lines.append(f"  {REJECTED_NEXT}")
        if bench.note:
            lines.append(f"  {bench.note}")
    env = result.environment
    lines.append(
        "environment: "
        + ", ".join(f"{k}={env[k]}" for k in ("backend", "device", "torch", "python") if k in env)
    )
    return "\n".join(lines)

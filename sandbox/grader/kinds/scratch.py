"""The scratch run: the student's file plus a script of their own, in the same sandbox with the
same limits as a Run, through the one judging loop (sandbox/grader/judging.py), for every problem.

Nothing of the package's tests reaches the sandbox, nor does the grader load them: no case, no
reference, no expected value (``prepare`` loads nothing). The loop imports the student's file
(no name is required: a half-written file runs too); the one "case" sends the script
(``op: script``); the runner runs it with the file's names, keeps the first
SCRATCH_OUTPUT_CHARS characters of what it prints (sandbox/runner/calls.py's ``run_script``) and
answers with them and the exception that ended it. The output is the student's own text and
is treated as hostile: typed, cut to the limit here again, never parsed.

Verdicts: none for a script that ran to its end (the case is AC inside; ``JudgeResult.output``
makes the shown verdict null), RE for an exception (its traceback ends the output), MLE for a
MemoryError, and what the loop decides of the sandbox's faults (TLE past the time limit,
MLE, OLE for more than the output limit written to the file descriptors themselves), with
the limits of a Run's test (``limits.time_s`` of CPU time on a CPU, as sandbox/grader/session.py counts).
"""

from __future__ import annotations

from sandbox.grader.compare import is_memory_error
from sandbox.grader.contracts import (
    SCRATCH_CUT_NOTE,
    SCRATCH_OUTPUT_CHARS,
    SLACK_S,
    JudgeResult,
    TestResult,
    Verdict,
)
from sandbox.grader.judging import Kind, register
from sandbox.grader.session import CHANNEL_MESSAGE, Fault, Session, clamped, well_formed
from sandbox.practice import runtime as practice_runtime
from sandbox.runner import protocol

SCRIPT_CASE = "script"  # the name of a scratch run's one result


@register
class ScratchKind(Kind):
    name = "scratch"

    def environment(self) -> dict[str, str]:
        return {"kind": "scratch"}

    def cases(self) -> list[tuple[str, bool]]:
        return [(SCRIPT_CASE, True)]

    def load_request(self) -> tuple[str, list[str]]:
        return self.judging.source, []

    def load_modules(self) -> dict[str, str]:
        """A practice problem's runtime, which the student's file imports (the handbook's gpusim:
        sandbox/practice/runtime.py); nothing of its tests."""
        return practice_runtime.sandbox_files(practice_runtime.package_files(self.judging.package.path))

    def run_case(self, session: Session, index: int) -> TestResult:
        limit_s = self.judging.package.limits.time_s
        reply, _ = session.request(
            protocol.script(self.judging.script, SCRATCH_OUTPUT_CHARS),
            limit_s + SLACK_S,
            "your script",
            # the limit of a Run's test: CPU time on a CPU, the wall clock on a GPU
            cpu_limit_s=limit_s if self.judging.device == "cpu" else None,
        )
        time_ms = session.last_round_trip_ns / 1e6
        output, printed, error = reply.get("output"), reply.get("printed_chars"), reply.get("error")
        if type(output) is not str or type(printed) is not int:
            raise Fault(Verdict.RE, CHANNEL_MESSAGE)
        output = output[:SCRATCH_OUTPUT_CHARS]
        truncated = printed > len(output)
        if truncated:
            output += SCRATCH_CUT_NOTE.format(kept=len(output), printed=printed)
        details = {"printed_chars": max(printed, len(output)), "truncated": truncated}
        if error is None:
            self.judging.output = output
            return TestResult(SCRIPT_CASE, True, Verdict.AC, "your script ran to its end",
                              time_ms=time_ms, details=details)
        if not well_formed(error) or error.get("kind") != "raise":
            raise Fault(Verdict.RE, CHANNEL_MESSAGE)
        error = clamped(error)
        self.judging.output = output + ("\n" if output and not output.endswith("\n") else "")
        self.judging.output += error["traceback"]
        if is_memory_error(error):
            return TestResult(SCRIPT_CASE, True, Verdict.MLE, "your script ran out of memory",
                              time_ms=time_ms, details=details)
        return TestResult(
            SCRIPT_CASE, True, Verdict.RE,
            f"your script raised {error['type']}: {error['message']}"[:2000],
            time_ms=time_ms, details={**details, "traceback": error["traceback"]},
        )


def format_scratch(result: JudgeResult) -> str:
    """A scratch run as a terminal shows it (both command lines): what the script printed, then
    one line of how it ended."""
    ended = result.message or (result.tests[0].message if result.tests else "")
    how = f"{result.verdict} ({ended})" if result.shown_verdict else ended
    text = result.output or ""
    return text + ("" if not text or text.endswith("\n") else "\n") + f"scratch run: {how}"

"""The practice kind's harness mode: a C++ or CUDA C++ practice folder (sandbox/practice/harness.py),
whose test is a program. The runner compiles it with the student's file inside the sandbox and
runs it (the ``harness`` op, sandbox/runner/harness.py); its ``CASE`` lines become the tests.

Verdicts per case: PASS AC, FAIL WA (the harness's reason), ERROR RE. The case the program was
in when something stopped it (a sanitizer's report, a crash) is RE with that message; past the
time limit TLE; the cases after it are skipped. A report after the last case (a leak found at
exit) is RE on a case of its own, ``at_exit``. A compile error is CE with the compiler's log
(the student's file is ``user.cpp`` / ``user.cu``, its lines as written). A CUDA harness on a
CPU host runs on the emulation: the result says so (correctness only, no speed).
"""

from __future__ import annotations

import time
from typing import Any

from sandbox.grader.contracts import (
    HARNESS_COMPILE_S,
    JudgeResult,
    Mode,
    TestResult,
    Verdict,
    WrongKind,
    program_wait_s,
)
from sandbox.grader.judging import Judging, result_of, skip_all
from sandbox.grader.session import Fault, Session
from sandbox.practice import harness as practice_harness
from sandbox.practice.package import PracticeSettings
from sandbox.runner import protocol

COMPILE_S = HARNESS_COMPILE_S  # the compile's own limit in the sandbox (a CE past it)
STATUS_VERDICT = {"PASS": Verdict.AC, "FAIL": Verdict.WA, "ERROR": Verdict.RE}
AT_EXIT = "at_exit"


def harness_of(judging: Judging) -> PracticeSettings | None:
    """The ``[practice]`` settings of a harness package, or None for a Python one."""
    settings = judging.package.practice
    return settings if settings is not None and settings.harness else None


class HarnessMode:
    """What the practice kind does for a harness package (see the module docstring)."""

    def __init__(self, judging: Judging, settings: PracticeSettings) -> None:
        self.judging = judging
        self.language = settings.harness
        self.sanitize = settings.sanitize
        self.main = settings.main or practice_harness.main_name(self.language)
        self.public = set(settings.public)
        self.listed = settings.judged()
        self.cases_: list[tuple[str, bool]] = self._selected(self.listed)
        self.results: dict[str, TestResult] = {}
        folder = judging.package.path / practice_harness.HARNESS_DIR
        self.files = {name: (folder / name).read_text(encoding="utf-8")
                      for name in (self.main, *settings.files)}

    def _selected(self, names: list[str]) -> list[tuple[str, bool]]:
        submit = self.judging.mode == Mode.SUBMIT
        return [(n, n in self.public) for n in names if submit or n in self.public]

    @property
    def time_s(self) -> float:
        return self.judging.package.limits.time_s

    def wall_time_s(self) -> float:
        return COMPILE_S + self.time_s + 30

    def environment(self) -> dict[str, Any]:
        return {"harness": self.language,
                "sanitizers": "ThreadSanitizer" if self.sanitize == "thread"
                else ("AddressSanitizer + UBSan + LeakSanitizer" if self.language == "cpp"
                      else "the emulation's (AddressSanitizer + UBSan, races, deadlocks)")}

    def start(self, session: Session, kind: Any) -> JudgeResult | None:
        """Compile and run the program; a CE (or a fault's verdict) ends the judging here."""
        request = protocol.harness(
            self.language, self.main, practice_harness.student_name(self.language), self.files,
            self.judging.source, sanitize=self.sanitize, compile_s=COMPILE_S, time_s=self.time_s)
        started = time.perf_counter()
        try:
            reply, _ = session.request(request, program_wait_s(self.time_s),
                                       "the test program")
        except Fault as fault:
            skip_all(kind, "skipped: the test program did not finish")
            return result_of(kind, fault.verdict, fault.message)
        if reply.get("status") == "compile":
            skip_all(kind, "skipped: compilation error")
            raw = reply.get("error")
            log = str(raw.get("message", "")) if isinstance(raw, dict) else ""
            return result_of(kind, Verdict.CE, f"your file did not compile:\n{log[:16000]}")
        self.judging.env["harness_ms"] = round((time.perf_counter() - started) * 1000, 1)
        self._read_cases(reply)
        return None

    def _read_cases(self, reply: dict[str, Any]) -> None:
        printed = [c for c in reply.get("cases", []) if isinstance(c, list) and len(c) == 3]
        error = str(reply.get("error") or "")
        timed_out = reply.get("timed_out") is True
        names = list(self.listed)
        for name, _, _ in printed:
            if str(name) not in names:
                names.append(str(name))
        self.judging.env["practice_cases"] = [str(c[0]) for c in printed]
        if not self.listed and not self.public:  # the package check's first run: all cases
            self.public = set(practice_harness.public_of([str(c[0]) for c in printed]))
        done = {str(c[0]): c for c in printed}
        stopped = False
        for name in names:
            if name in done:
                _, status, detail = done[name]
                verdict = STATUS_VERDICT.get(str(status), Verdict.RE)
                self.results[name] = TestResult(
                    name, name in self.public, verdict, str(detail),
                    wrong_kind=WrongKind.VALUE if verdict == Verdict.WA else None)
            elif stopped:
                self.results[name] = TestResult(name, name in self.public, Verdict.SK,
                                                "skipped: an earlier test ended your program")
            else:
                stopped = True
                verdict = Verdict.TLE if timed_out else (Verdict.RE if error else Verdict.WA)
                message = error or "the test program ended without reporting this case"
                self.results[name] = TestResult(name, name in self.public, verdict, message)
        if (error or timed_out) and not stopped:  # after the last case (a leak at exit)
            verdict = Verdict.TLE if timed_out else Verdict.RE
            self.results[AT_EXIT] = TestResult(AT_EXIT, False, verdict, error)
            names.append(AT_EXIT)
        if not names:  # nothing printed, nothing listed
            self.results[AT_EXIT] = TestResult(
                AT_EXIT, False, Verdict.TLE if timed_out else Verdict.RE,
                error or "the test program printed no CASE line")
            names.append(AT_EXIT)
        self.cases_ = [(n, n in self.public) for n in names
                       if self.judging.mode == Mode.SUBMIT or n in self.public]

    def run_case(self, index: int) -> TestResult:
        name, _ = self.cases_[index]
        return self.results[name]

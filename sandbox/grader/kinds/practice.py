"""The practice kind: a practice folder's ``test.py`` functions (sandbox/practice/folder.py), run in
the grader against proxies of the student's names (sandbox/practice/proxies.py).

Verdicts per test: returned AC; AssertionError WA; the student's exception RE (its traceback,
trimmed to the student's frames), whatever its name or base; SK only for the checker's own
``Skip`` raised by the test's code, or a test the channel cannot carry (reported as
unsupported). Per test, ``limits.time_s`` bounds all the calls it makes together. The judging
loop (sandbox/grader/judging.py) does the rest, as for every kind.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable
from typing import Any

from sandbox.grader.contracts import JudgeResult, Mode, TestResult, Verdict, WrongKind
from sandbox.grader.judging import Kind, register, result_of, skip_all
from sandbox.grader.kinds.practice_harness import HarnessMode, harness_of
from sandbox.grader.session import Fault, Session
from sandbox.practice import folder as practice_folder
from sandbox.practice import runtime as practice_runtime
from sandbox.practice.checker import Skip, make_checker
from sandbox.practice.package import PracticeSettings
from sandbox.practice.proxies import (
    SHIM_FUNCTIONS,
    Abort,
    ProxyUnsupported,
    Remote,
    SolutionModule,
    load_tests,
    shim_source,
)
from sandbox.practice.runtime_proxy import runtime_modules
from sandbox.practice.student_errors import TESTS_FILENAME, bare_assert_text, student_traceback

log = logging.getLogger(__name__)


@register
class PracticeKind(Kind):
    name = practice_folder.KIND

    def environment(self) -> dict[str, Any]:
        return {"kind": practice_folder.KIND}

    def prepare(self) -> None:
        settings = self.judging.package.practice or PracticeSettings()
        public = set(settings.public)
        self._cases = [
            (name, name in public)
            for name in settings.judged()
            if name in public or self.judging.mode == Mode.SUBMIT
        ]
        self.unsupported: list[dict[str, str]] = []
        self.remote: Remote | None = None
        self.namespace: dict[str, Any] = {}
        self.lines: list[str] = []
        harness = harness_of(self.judging)  # a C++ / CUDA C++ folder: its test is a program
        self.harness = HarnessMode(self.judging, harness) if harness is not None else None
        if self.harness is not None:
            self.judging.env.update(self.harness.environment())

    def cases(self) -> list[tuple[str, bool]]:
        return self.harness.cases_ if self.harness is not None else self._cases

    def wall_time_s(self) -> float:
        return self.harness.wall_time_s() if self.harness is not None else super().wall_time_s()

    def sanitized(self) -> bool:
        return self.harness is not None or super().sanitized()

    def emulated(self) -> bool:
        return (self.harness is not None and self.harness.language == "cuda"
                and not str(self.judging.env.get("device", "")).startswith("cuda"))

    def load_request(self) -> tuple[str, list[str]]:
        if self.harness is not None:  # nothing to import: the program is compiled in start()
            return "", []
        source = self.judging.source.rstrip("\n") + "\n\n\n" + shim_source()
        return source, [*SHIM_FUNCTIONS, *self.judging.package.functions]

    def load_modules(self) -> dict[str, str]:
        """The handbook's runtime the package holds (sandbox/practice/runtime.py), for the
        student's sandbox: the only place it runs."""
        return practice_runtime.sandbox_files(practice_runtime.package_files(self.judging.package.path))

    def reported_missing(self, missing: list[str]) -> list[str]:
        return [name for name in missing if name not in SHIM_FUNCTIONS]

    def start(self, session: Session, hello: dict[str, Any]) -> JudgeResult | None:
        """Execute the package's test.py against the proxies of the student's names."""
        if self.harness is not None:
            return self.harness.start(session, self)
        judging = self.judging
        remote = Remote(session, judging.device)
        self.remote = remote
        source = (judging.package.path / TESTS_FILENAME).read_text(encoding="utf-8")
        remote.test_name = "import"
        remote.deadline = time.monotonic() + judging.package.limits.time_s
        try:
            runtime = practice_runtime.module_names(self.load_modules())
            self.namespace = load_tests(
                source, make_checker(str(hello.get("device", "cpu"))), SolutionModule(remote),
                runtime_modules(remote, runtime),
            )
        except Abort:
            failed = remote.fault or Fault(Verdict.IE, "the tests could not start")
            skip_all(self, "skipped: the tests could not start")
            return result_of(self, failed.verdict, failed.message)
        except ImportError as exc:
            if exc.name != "solution":  # a module the tests need is missing: ours
                skip_all(self, "skipped: internal error")
                return result_of(self, Verdict.IE, f"the problem's tests failed to load: {exc}")
            skip_all(self, "skipped: compilation error")
            return result_of(self, Verdict.CE, f"the tests need a name your file does not define: {exc}")
        except BaseException as exc:  # noqa: BLE001 - the package's test.py: ours, not the student's
            log.exception("practice tests of %s failed to load", judging.package.path)
            skip_all(self, "skipped: internal error")
            return result_of(
                self, Verdict.IE, f"the problem's tests failed to load: {type(exc).__name__}: {exc}"
            )
        self.lines = source.splitlines()
        return None

    def program_ended(self) -> bool:
        return self.remote is not None and self.remote.dead

    def finish(self) -> None:
        if self.unsupported:
            self.judging.env["practice_unsupported"] = self.unsupported
        if self.remote is not None and self.remote.callback_tests:
            self.judging.env["practice_callbacks"] = list(self.remote.callback_tests)

    def run_case(self, session: Session, index: int) -> TestResult:
        if self.harness is not None:
            return self.harness.run_case(index)
        name, public = self._cases[index]
        fn = self.namespace.get(name)
        if not callable(fn):
            raise Fault(Verdict.IE, f"the problem's test {name} is missing")
        assert self.remote is not None
        self.remote.test_name = name
        return self._run_test(self.remote, fn, name, public)

    def _run_test(self, remote: Remote, fn: Callable[[], Any], name: str, public: bool) -> TestResult:
        remote.fault = None
        remote.raised = None
        remote.deadline = time.monotonic() + self.judging.package.limits.time_s
        start = time.perf_counter()

        def done(verdict: Verdict, message: str = "", **extra: Any) -> TestResult:
            took = (time.perf_counter() - start) * 1000
            return TestResult(name, public, verdict, message, time_ms=round(took, 3), **extra)

        try:
            outcome = fn()
            if inspect.isawaitable(outcome):
                asyncio.run(_await(outcome))
        except Abort:
            fault = remote.fault or Fault(Verdict.IE, "the channel failed")
            return done(fault.verdict, fault.message)
        except ProxyUnsupported as exc:
            self.unsupported.append({"test": name, "reason": str(exc)})
            return done(Verdict.SK, f"not judged here: {exc}")
        except AssertionError as exc:
            message = str(exc) or bare_assert_text(exc, self.lines)
            obs = getattr(exc, "_practice_obs", None)
            details = {"traceback": student_traceback(obs)} if obs else {}
            return done(Verdict.WA, message, wrong_kind=WrongKind.VALUE, details=details)
        except Exception as exc:  # noqa: BLE001 - the student's exception, or the test's on their value
            obs = getattr(exc, "_practice_obs", None)
            if obs is None and isinstance(exc, Skip):  # the checker's own, raised by the test
                return done(Verdict.SK, f"skipped: {exc}")
            if obs is not None:
                trace = student_traceback(obs)
                return done(
                    Verdict.RE,
                    f"your code raised {obs['type']}: {obs['message']}",
                    details={"exception": str(obs["type"]), "traceback": trace},
                )
            return done(
                Verdict.RE,
                f"the test failed on what your code returned: {type(exc).__name__}: {exc}",
                details={"exception": type(exc).__name__},
            )
        return done(Verdict.AC)


async def _await(awaitable: Any) -> Any:
    return await awaitable

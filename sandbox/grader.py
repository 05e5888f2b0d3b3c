"""The trusted grader: judges one submission of one problem through one sandbox.

It runs in the worker's own process: it loads the package's tests and reference (never sent
into the sandbox), computes the expected observation of every test with the reference, sends
only the inputs of the moment to the runner, compares what comes back (sandbox/compare.py),
and decides one verdict per test. One sandbox per judging; after a fatal fault (timeout,
death, output flood, a corrupted channel) the remaining tests are skipped (SK).

Seeds: a public case's inputs come from a fixed seed derived from its name (so the statement's
examples match); a hidden case's seed mixes in a secret drawn per judging.
"""

from __future__ import annotations

import hashlib
import logging
import platform
import random
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from sandbox import wire
from sandbox.backends.base import Backend, SandboxSpec
from sandbox.compare import compare, is_memory_error
from sandbox.contracts import JudgeResult, Mode, TestResult, Verdict, overall_verdict
from sandbox.feedback import explain, for_student
from sandbox.problem import Case, ProblemPackage
from sandbox.session import (
    CHANNEL_MESSAGE,
    SLACK_S,
    STARTUP_TIMEOUT_S,
    Fault,
    Session,
    await_hello,
    clamped,
    well_formed,
)

if TYPE_CHECKING:
    from sandbox.bench import Series

log = logging.getLogger(__name__)

MAX_SOURCE_BYTES = 512 * 1024
IMPORT_TIMEOUT_S = 20.0  # importing the student's file (it may import triton)
def case_seed(case: Case, secret: int | None) -> int:
    """Fixed for public cases; mixed with the per-judging secret for hidden ones."""
    key = f"public:{case.name}" if case.public or secret is None else f"{secret}:{case.name}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") & 0x7FFF_FFFF_FFFF_FFFF


def grader_environment() -> dict[str, Any]:
    return {
        "grader_python": platform.python_version(),
        "grader_torch": torch.__version__,
    }


def judge(
    package: ProblemPackage,
    source: str,
    *,
    mode: Mode,
    backend: Backend,
    secret_seed: int | None = None,
    on_progress: Callable[[TestResult], None] | None = None,
    gpu_id: str | None = None,
    labels: dict[str, str] | None = None,
) -> JudgeResult:
    """Judge ``source`` against ``package``: public tests for Run; all tests, then the
    benchmark when every test passed, for Submit. Never raises for the student's faults;
    our own faults give an IE result."""
    env: dict[str, Any] = {"backend": backend.name, **grader_environment()}
    if len(source.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        return JudgeResult(
            Verdict.CE,
            [],
            None,
            env,
            f"the file is larger than {MAX_SOURCE_BYTES} bytes",
            package.version,
        )
    try:
        cases = package.load_cases()
        reference = package.load_reference()
    except Exception as exc:
        log.exception("cannot load package %s", package.path)
        return JudgeResult(
            Verdict.IE, [], None, env, f"problem package failed to load: {exc}", package.version
        )
    selected = [c for c in cases if c.public or mode == Mode.SUBMIT]
    secret = secret_seed if secret_seed is not None else secrets.randbits(63)
    limits = package.limits
    bench_budget = 0.0
    if mode == Mode.SUBMIT and package.benchmark:
        bench_budget = package.benchmark.max_time_s * (len(package.benchmark.shapes) + 1) + 30
    spec = SandboxSpec(
        memory_mib=limits.memory_mib,
        pids=limits.pids,
        tmpfs_mib=limits.tmpfs_mib,
        output_kib=limits.output_kib,
        wall_time_s=STARTUP_TIMEOUT_S + len(selected) * (limits.time_s + 2) + bench_budget + 30,
        gpu_id=gpu_id,
        labels=labels or {},
    )
    judging = _Judging(package, source, selected, reference, secret, mode, on_progress, env)
    try:
        box = backend.start(spec)
    except Exception as exc:
        log.exception("sandbox start failed")
        return JudgeResult(
            Verdict.IE, [], None, env, f"sandbox failed to start: {exc}", package.version
        )
    try:
        with box:
            env.update(box.environment)
            return judging.run(Session(box, limits.output_kib))
    except Exception as exc:
        log.exception("internal error while judging")
        return JudgeResult(
            Verdict.IE, judging.results, None, env, f"internal error: {exc}", package.version
        )


class _Judging:
    def __init__(
        self,
        package: ProblemPackage,
        source: str,
        cases: list[Case],
        reference: Any,
        secret: int,
        mode: Mode,
        on_progress: Callable[[TestResult], None] | None,
        env: dict[str, Any],
    ) -> None:
        self.package, self.source, self.cases, self.reference = package, source, cases, reference
        self.secret, self.mode, self.on_progress, self.env = secret, mode, on_progress, env
        self.results: list[TestResult] = []
        self.device = "cpu"

    def result(self, verdict: Verdict, message: str = "") -> JudgeResult:
        return JudgeResult(verdict, self.results, None, self.env, message, self.package.version)

    def report(self, result: TestResult) -> None:
        shown = for_student(result, self.package.feedback_hidden)
        self.results.append(shown)
        if self.on_progress is not None:
            self.on_progress(shown)

    def skip_rest(self, start: int, why: str) -> None:
        for case in self.cases[start:]:
            self.report(TestResult(case.name, case.public, Verdict.SK, why))

    def run(self, session: Session) -> JudgeResult:
        try:
            hello, _ = await_hello(session)
        except Fault as fault:
            return self.result(Verdict.IE, f"the sandbox did not start: {fault.message}")
        for key in ("python", "torch", "triton", "device", "cpu", "cuda"):
            if key in hello:
                self.env[key] = hello[key]
        # A GPU problem runs on the GPU when the sandbox has one, else on the CPU (Triton's
        # interpreter, or a CPU-only development machine).
        has_cuda = str(hello.get("device", "")).startswith("cuda")
        self.device = "cuda" if self.package.device != "cpu" and has_cuda else "cpu"
        clean: dict[str, Series] = {}
        if self.mode == Mode.SUBMIT and self.package.benchmark:
            try:
                timed = self.time_clean_baselines(session)
            except Fault as fault:
                return self.result(Verdict.IE, f"the baseline could not be timed: {fault.message}")
            if isinstance(timed, JudgeResult):
                return timed
            clean = timed
        verdict = self.load(session)
        if verdict is not None:
            return verdict
        for index, case in enumerate(self.cases):
            try:
                self.report(self.run_case(session, case))
            except Fault as fault:
                self.report(TestResult(case.name, case.public, fault.verdict, fault.message))
                if fault.fatal:
                    self.skip_rest(index + 1, "skipped: an earlier test ended your program")
                    return self.result(overall_verdict(self.results))
        benchmark = None
        if (
            self.mode == Mode.SUBMIT
            and self.package.benchmark
            and overall_verdict(self.results) == Verdict.AC
        ):
            from sandbox.bench import run_benchmark

            try:
                bench_device = "auto" if self.package.device != "cpu" else "cpu"
                benchmark, wrong = run_benchmark(session, self.package, bench_device, clean)
            except Fault as fault:
                benchmark, wrong = (
                    None,
                    TestResult("benchmark", False, fault.verdict, fault.message),
                )
            if wrong is not None:
                self.report(wrong)
        self._goodbye(session)
        return JudgeResult(
            overall_verdict(self.results),
            self.results,
            benchmark,
            self.env,
            "",
            self.package.version,
        )

    def _goodbye(self, session: Session) -> None:
        try:
            session.request({"op": "bye"}, 2.0, "shutdown")
        except Fault:
            pass

    def time_clean_baselines(self, session: Session) -> dict[str, Series] | JudgeResult:
        """Import and time the baselines before the student's code exists in the sandbox."""
        from sandbox.bench import clean_baselines

        bench = self.package.benchmark
        assert bench is not None
        names = sorted({s.baseline or bench.baseline for s in bench.shapes})
        reply, _ = session.request({"op": "baselines", "baselines": names}, 60.0, "baseline import")
        if reply.get("status") != "ok":
            self.skip_rest(0, "skipped: internal error")
            return self.result(Verdict.IE, f"baseline kernel failed to load: {reply.get('error')}")
        device = "auto" if self.package.device != "cpu" else "cpu"
        return clean_baselines(session, self.package, device, random.SystemRandom())

    def load(self, session: Session) -> JudgeResult | None:
        limits = self.package.limits
        bench = self.package.benchmark
        baselines = []
        if bench is not None and self.mode == Mode.SUBMIT:
            baselines = sorted({s.baseline or bench.baseline for s in bench.shapes})
        message = {
            "op": "load",
            "source": self.source,
            "functions": list(self.package.functions),
            "baselines": baselines,
        }
        try:
            reply, _ = session.request(
                message, max(limits.time_s, IMPORT_TIMEOUT_S) + SLACK_S, "the import of your file"
            )
        except Fault as fault:
            self.skip_rest(0, "skipped: your file could not be loaded")
            verdict = (
                Verdict.CE if fault.verdict == Verdict.RE and not fault.fatal else fault.verdict
            )
            return self.result(verdict, fault.message)
        return self._load_status(reply)

    def _load_status(self, reply: dict[str, Any]) -> JudgeResult | None:
        status = reply.get("status")
        if status == "ok":
            return None
        if status == "baseline_error":
            self.skip_rest(0, "skipped: internal error")
            return self.result(Verdict.IE, f"baseline kernel failed to load: {reply.get('error')}")
        if status == "missing":
            missing = ", ".join(str(m) for m in reply.get("missing", []))
            self.skip_rest(0, "skipped: compilation error")
            return self.result(Verdict.CE, f"your file must define: {missing}")
        raw_error = reply.get("error")
        error: dict[str, Any] = (
            clamped(raw_error) if isinstance(raw_error, dict) and well_formed(raw_error) else {}
        )
        self.skip_rest(0, "skipped: compilation error")
        if is_memory_error(error):
            return self.result(Verdict.MLE, "your file ran out of memory while being imported")
        text = str(error.get("traceback") or error.get("message") or "")
        return self.result(Verdict.CE, f"your file failed to import:\n{text}")

    def run_case(self, session: Session, case: Case) -> TestResult:
        seed = case_seed(case, self.secret)
        call = case.make(torch.Generator().manual_seed(seed))
        grad_seed = seed ^ 0x5DEECE66D
        fn = getattr(self.reference, case.fn)
        expected = wire.execute_call(
            fn, list(call.args), dict(call.kwargs), case.grad_wrt, grad_seed
        )
        limit = self.package.limits.time_s
        reply, blob = session.request(
            {
                "op": "call",
                "fn": case.fn,
                "grad_wrt": list(case.grad_wrt),
                "grad_seed": grad_seed,
                "device": self.device,
            },
            limit + SLACK_S,
            f"test {case.name}",
            args=list(call.args),
            kwargs=dict(call.kwargs),
        )
        time_ms = session.last_round_trip_ns / 1e6
        got = session.value(reply, blob, "obs")
        if not well_formed(got):
            raise Fault(Verdict.RE, CHANNEL_MESSAGE)
        got = clamped(got)
        try:
            outcome = compare(expected, got, case, self.package.tolerances)
        except (ValueError, TypeError, KeyError) as exc:
            raise Fault(Verdict.RE, f"{CHANNEL_MESSAGE} ({exc})") from None
        details = dict(outcome.details)
        if got.get("kind") == "raise":
            details["exception"] = str(got.get("type", ""))[:100]
        return TestResult(
            name=case.name,
            public=case.public,
            verdict=outcome.verdict,
            message=explain(outcome.message, outcome.details),
            wrong_kind=outcome.wrong_kind,
            time_ms=round(time_ms, 3),
            details=details,
        )

"""The trusted grader: judges one submission of one problem through one sandbox.

It runs in the worker's own process: it loads the package's tests and reference (never sent
into the sandbox), computes the expected observation of every test with the reference, sends
only the inputs of the moment to the runner, compares what comes back (sandbox/compare.py),
and decides one verdict per test. One sandbox per judging; after a fatal fault (timeout,
death, output flood, a corrupted channel) the remaining tests are skipped (SK).

Seeds: a public case's inputs come from a fixed seed derived from its name (so the statement's
examples match); a hidden case's seed mixes in a secret drawn per judging.

A Submit with a benchmark has a second sandbox: the baseline's own (same backend, same spec),
started beside the student's and loaded with the trusted kernels source of the baselines
(sandbox/problem.py, ``baseline_file``). Nothing of a solution ever enters the student's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import platform
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import torch

from sandbox import wire
from sandbox.backends.base import Backend, Sandbox, SandboxSpec
from sandbox.bench.peak import CACHE as PEAKS
from sandbox.bench.peak import PROBE, Peak, machine_peak, with_probe
from sandbox.compare import compare, is_memory_error
from sandbox.contracts import (
    NOTHING_JUDGED,
    JudgeResult,
    Mode,
    TestResult,
    Verdict,
    overall_verdict,
)
from sandbox.feedback import explain, for_student
from sandbox.problem import Case, PackageError, ProblemPackage, baseline_file
from sandbox.session import (
    CHANNEL_MESSAGE,
    IMPORT_TIMEOUT_S,
    MAX_SOURCE_BYTES,
    SLACK_S,
    STARTUP_TIMEOUT_S,
    Fault,
    Session,
    await_hello,
    clamped,
    import_limit_s,
    well_formed,
)

log = logging.getLogger(__name__)


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
    kernels_root: Path | None = None,
    expected_cache: dict[tuple[str, int], dict[str, Any]] | None = None,
) -> JudgeResult:
    """Judge ``source`` against ``package``: public tests for Run; all tests, then the
    benchmark when every test passed, for Submit. Never raises for the student's faults;
    our own faults give an IE result. ``kernels_root``: the folder whose ``kernels/`` holds
    the baselines' source (default: this repository's). ``expected_cache``: the reference's
    observations by (case, seed), filled and reused by judgings of one package version (the
    package check judges every file with one secret: the reference runs once per test, not
    once per file)."""
    if package.manifest.get("kind") == "practice":  # problem kinds: sandbox/practice.py
        from sandbox.practice_judge import judge_practice

        return judge_practice(
            package, source, mode=mode, backend=backend, on_progress=on_progress,
            gpu_id=gpu_id, labels=labels,
        )
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
    baseline: tuple[str, dict[str, str]] | None = None
    if mode == Mode.SUBMIT and package.benchmark and package.benchmark.shapes:
        bench = package.benchmark
        try:
            baseline = with_probe(
                baseline_file(sorted({s.baseline or bench.baseline for s in bench.shapes}), kernels_root)
            )
        except (PackageError, OSError, SyntaxError) as exc:
            return JudgeResult(
                Verdict.IE, [], None, env, f"baseline kernel failed to load: {exc}", package.version
            )
    elif mode == Mode.SUBMIT and package.device == "cpu" and not PEAKS.fresh((backend.name, "cpu")):
        # No benchmark, yet every Submit records the machine's limits: a sandbox for the probe
        # alone, once per grader process and hour (sandbox/bench/peak.py).
        baseline = with_probe(("", {}))
    judging = _Judging(package, source, selected, reference, secret, mode, on_progress, env)
    judging.expected_cache = expected_cache
    judging.backend_name = backend.name
    try:
        box = backend.start(spec)
    except Exception as exc:
        log.exception("sandbox start failed")
        return JudgeResult(
            Verdict.IE, [], None, env, f"sandbox failed to start: {exc}", package.version
        )
    sibling_spec = dataclasses.replace(spec, gpu_lock_held=spec.gpu_id is not None)
    try:
        with box, _BaselineBox(backend, sibling_spec if baseline else None) as sibling:
            env.update(box.environment)
            judging.baseline = baseline
            return judging.run(Session(box, limits.output_kib), sibling)
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
        self.baseline: tuple[str, dict[str, str]] | None = None  # file, names of the baselines
        self.expected_cache: dict[tuple[str, int], dict[str, Any]] | None = None
        self.backend_name = ""  # the key of the machine's limits (with the device)
        self.student_box: Sandbox | None = None  # stopped while the limits are measured

    def result(self, verdict: Verdict, message: str = "") -> JudgeResult:
        if verdict == Verdict.IE and not message:
            message = NOTHING_JUDGED
        return JudgeResult(verdict, self.results, None, self.env, message, self.package.version)

    def report(self, result: TestResult) -> None:
        shown = for_student(result, self.package.feedback_hidden)
        self.results.append(shown)
        if self.on_progress is not None:
            self.on_progress(shown)

    def skip_rest(self, start: int, why: str) -> None:
        for case in self.cases[start:]:
            self.report(TestResult(case.name, case.public, Verdict.SK, why))

    def run(self, session: Session, sibling: _BaselineBox) -> JudgeResult:
        self.student_box = session.box
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
        if self.mode == Mode.SUBMIT:  # the limits last measured here (a benchmark refreshes them)
            known = PEAKS.cached(self.peak_key())
            self.env["peak"] = known.to_json() if known is not None else None
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
            and self.baseline is not None
            and overall_verdict(self.results) == Verdict.AC
        ):
            from sandbox.bench import run_benchmark

            try:
                base_session, names = self.baseline_session(sibling)
            except Fault as fault:
                return self.result(Verdict.IE, fault.message)
            peak = self.machine_peak(base_session, names)
            try:
                bench_device = "auto" if self.package.device != "cpu" else "cpu"
                benchmark, wrong = run_benchmark(
                    session, base_session, self.package, bench_device, names, self.cases, peak,
                    lambda: self.machine_peak(base_session, names, force=True),
                )
            except Fault as fault:
                if fault.verdict == Verdict.IE:  # the baseline's sandbox: ours
                    return self.result(Verdict.IE, fault.message)
                benchmark, wrong = (
                    None,
                    TestResult("benchmark", False, fault.verdict, fault.message),
                )
            if wrong is not None:
                self.report(wrong)
            self._goodbye(base_session)
        elif self.mode == Mode.SUBMIT and self.baseline is not None and self.env.get("peak") is None:
            self.measure_only(sibling)
        self._goodbye(session)
        final = overall_verdict(self.results)
        return JudgeResult(
            final,
            self.results,
            benchmark,
            self.env,
            NOTHING_JUDGED if final == Verdict.IE else "",
            self.package.version,
        )

    def measure_only(self, sibling: _BaselineBox) -> None:
        """The machine's limits for a Submit whose benchmark did not run (none, or a test
        failed) while none are known in this process: measured in the baseline's sandbox,
        which holds only trusted code; a failure is logged, never the student's."""
        try:
            base_session, names = self.baseline_session(sibling)
        except Fault as fault:
            log.warning("no sandbox for the probe of the machine's limits: %s", fault.message)
            return
        self.machine_peak(base_session, names)
        self._goodbye(base_session)

    def peak_key(self) -> tuple[str, str]:
        """The machine's limits are kept per backend and device (a GPU problem's sandbox on a
        GPU host measures the GPU; a CPU problem's, the CPU set)."""
        device = str(self.env.get("device", "cpu")) if self.device == "cuda" else "cpu"
        return self.backend_name, device

    def machine_peak(
        self, base_session: Session, names: dict[str, str], force: bool = False
    ) -> Peak | None:
        """The machine's limits (sandbox/bench/peak.py), measured in the baseline's sandbox
        when none fresh are kept (or ``force``), with the student's sandbox stopped (code left
        spinning there would understate them, and a low figure is kept for an hour); None when
        the probe fails (logged: the benchmark goes on without a speed of light, nothing the
        student did)."""
        key = self.peak_key()
        box = self.student_box if force or not PEAKS.fresh(key) else None
        stopped = box is not None and box.quiet(True)
        try:
            peak = machine_peak(base_session, names[PROBE], key[1], key[0], force=force)
        except (Fault, ValueError, TypeError) as exc:
            log.warning("the probe of the machine's limits failed: %s", exc)
            return None
        finally:
            if stopped and box is not None:
                box.quiet(False)
        self.env["peak"] = peak.to_json()
        return peak

    def _goodbye(self, session: Session) -> None:
        try:
            session.request({"op": "bye"}, 2.0, "shutdown")
        except Fault:
            pass

    def baseline_session(self, sibling: _BaselineBox) -> tuple[Session, dict[str, str]]:
        """The baseline's own sandbox, its trusted file loaded, and the baselines' names in
        it; a Fault (IE) when it does not come up: nothing the student did."""
        assert self.baseline is not None
        source, names = self.baseline
        try:
            box = sibling.box()
        except Exception as exc:
            log.exception("baseline sandbox start failed")
            raise Fault(Verdict.IE, f"the baseline's sandbox failed to start: {exc}") from None
        self.env["baseline_sandbox"] = box.environment.get("sandbox", box.environment["backend"])
        session = _BaselineSession(box, self.package.limits.output_kib)
        hello, _ = await_hello(session)
        if hello.get("device") != self.env.get("device"):
            raise Fault(Verdict.IE, "the baseline's sandbox has another device")
        message = {"op": "load", "source": source, "functions": sorted(names.values())}
        reply, _ = session.request(message, IMPORT_TIMEOUT_S + SLACK_S, "the baseline's import")
        if reply.get("status") != "ok":
            error = reply.get("error")
            text = error.get("traceback") if isinstance(error, dict) else reply.get("missing")
            raise Fault(Verdict.IE, f"baseline kernel failed to load: {str(text)[-1500:]}")
        return session, names

    def load(self, session: Session) -> JudgeResult | None:
        limits = self.package.limits
        message = {
            "op": "load",
            "source": self.source,
            "functions": list(self.package.functions),
        }
        try:
            reply, _ = session.request(
                message,
                import_limit_s(limits.time_s, list(self.package.manifest.get("requires", [])))
                + SLACK_S,
                "the import of your file",
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
        cache = self.expected_cache
        expected = cache.get((case.name, seed)) if cache is not None else None
        if expected is None:  # on clones of the inputs: ``call`` stays as made for the sandbox
            fn = getattr(self.reference, case.fn)
            expected = wire.execute_call(
                fn, list(call.args), dict(call.kwargs), case.grad_wrt, grad_seed
            )
            if cache is not None:
                cache[(case.name, seed)] = expected
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


class _BaselineSession(Session):
    """The channel to the baseline's own sandbox: only trusted code runs there, so any fault
    of it is ours (IE), never a verdict on the student."""

    def request(
        self, message: dict[str, Any], timeout_s: float, what: str = "the test", **values: Any
    ) -> tuple[dict[str, Any], bytes]:
        try:
            return super().request(message, timeout_s, what, **values)
        except Fault as fault:
            raise Fault(Verdict.IE, f"the baseline's sandbox failed: {fault.message}") from None


class _BaselineBox:
    """The baseline's sandbox, started in the background beside the student's (its start and
    torch import overlap the tests) and always closed on leaving the block, started or not.
    ``spec`` None: no benchmark, nothing started."""

    def __init__(self, backend: Backend, spec: SandboxSpec | None) -> None:
        self._box: Sandbox | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if spec is not None:
            self._thread = threading.Thread(
                target=self._start, args=(backend, spec), name="baseline-sandbox", daemon=True
            )
            self._thread.start()

    def _start(self, backend: Backend, spec: SandboxSpec) -> None:
        try:
            self._box = backend.start_trusted(spec)
        except BaseException as exc:  # handed to the grader by box()
            self._error = exc

    def box(self) -> Sandbox:
        """The started sandbox (waits for the start), or the start's exception."""
        if self._thread is None:
            raise RuntimeError("no baseline sandbox in this judging")
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._box is not None
        return self._box

    def __enter__(self) -> _BaselineBox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Wait for a start in progress (never leave a sandbox behind), then destroy it."""
        if self._thread is not None:
            self._thread.join()
        box, self._box = self._box, None
        if box is not None:
            box.close()

"""The tensor kind: a package's ``tests.py`` cases, checked against its reference.

It loads the package's tests and reference (never sent into the sandbox), computes the
expected observation of every test with the reference, sends only the inputs of the moment to
the runner, and compares what comes back (sandbox/grader/compare.py). Seeds: a public case's inputs
come from a fixed seed derived from its name (so the statement's examples match); a hidden
case's seed mixes in a secret drawn per judging.

A Submit with a benchmark has a second sandbox: the baseline's own (same backend, same spec),
started beside the student's and loaded with the trusted kernels source of the baselines
(sandbox/problem.py, ``baseline_file``). Nothing of a solution ever enters the student's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import platform
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import torch

from sandbox.bench.peak import CACHE as PEAKS
from sandbox.bench.peak import PROBE, Peak, machine_peak, with_probe
from sandbox.grader.compare import compare
from sandbox.grader.contracts import (
    IMPORT_TIMEOUT_S,
    SLACK_S,
    BenchmarkResult,
    Mode,
    TestResult,
    Verdict,
)
from sandbox.grader.feedback import explain
from sandbox.grader.judging import Kind, PrepareError, goodbye, register
from sandbox.grader.kernels_source import baseline_file
from sandbox.grader.package import PackageError
from sandbox.grader.session import (
    CHANNEL_MESSAGE,
    Fault,
    Session,
    await_hello,
    clamped,
    well_formed,
)
from sandbox.host.backends.base import Backend, Closing, Sandbox, SandboxSpec
from sandbox.problem import Case
from sandbox.runner import calls, protocol

log = logging.getLogger(__name__)


# A CUDA call's faults by their type: stopped at the time limit (TLE, the program ends), a race
# the emulation saw (WA, as the wrong sums a GPU would compute; the tests go on).
CUDA_FAULTS = {"CallTimeout": (Verdict.TLE, True), "DataRace": (Verdict.WA, False)}


def case_seed(case: Case, secret: int | None) -> int:
    """Fixed for public cases; mixed with the per-judging secret for hidden ones."""
    key = f"public:{case.name}" if case.public or secret is None else f"{secret}:{case.name}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") & 0x7FFF_FFFF_FFFF_FFFF


def grad_seed(seed: int) -> int:
    """The seed of a case's upstream gradient, from the seed of its inputs (``case_seed``)."""
    return seed ^ 0x5DEECE66D


def grader_environment() -> dict[str, Any]:
    return {
        "grader_python": platform.python_version(),
        "grader_torch": torch.__version__,
    }


@register
class TensorKind(Kind):
    name = "tensor"

    def environment(self) -> dict[str, Any]:
        return grader_environment()

    def prepare(self) -> None:
        judging = self.judging
        package = judging.package
        self._cases = [c for c in package.load_cases() if c.public or judging.mode == Mode.SUBMIT]
        self.reference = package.load_reference()
        self.secret = judging.secret_seed if judging.secret_seed is not None else secrets.randbits(63)
        self.baseline: tuple[str, dict[str, str]] | None = None  # file, names of the baselines
        self.student_box: Sandbox | None = None  # stopped while the machine is measured
        self.probed = False  # the baseline's sandbox was asked for the machine's limits
        bench = package.benchmark
        if package.language == "cuda" and judging.gpu_id is None:
            bench = None  # checked on the CPU by emulation: correctness only, no speed
        if judging.mode == Mode.SUBMIT and bench and bench.shapes:
            try:
                self.baseline = with_probe(
                    baseline_file(
                        sorted({s.baseline or bench.baseline for s in bench.shapes}),
                        judging.kernels_root,
                    )
                )
            except (PackageError, OSError, SyntaxError) as exc:
                raise PrepareError(f"baseline kernel failed to load: {exc}") from None
        elif (
            judging.mode == Mode.SUBMIT
            and package.device == "cpu"
            and not PEAKS.fresh((judging.backend.name, "cpu"))
        ):
            # No benchmark, yet every Submit records the machine's limits: a sandbox for the
            # probe alone, once per grader process and hour (sandbox/bench/peak.py).
            self.baseline = with_probe(("", {}))

    def cases(self) -> list[tuple[str, bool]]:
        return [(c.name, c.public) for c in self._cases]

    def wall_time_s(self) -> float:
        bench = self.judging.package.benchmark
        budget = 0.0
        if self.judging.mode == Mode.SUBMIT and bench:
            budget = bench.max_time_s * (len(bench.shapes) + 1) + 30
        return super().wall_time_s() + budget

    @contextlib.contextmanager
    def beside(self, spec: SandboxSpec) -> Iterator[None]:
        """The baseline's sandbox (the student's spec; the GPU lock, if any, already held),
        started in the background while the tests run."""
        sibling = dataclasses.replace(spec, gpu_lock_held=spec.gpu_id is not None)
        with _BaselineBox(self.judging.backend, sibling if self.baseline else None) as box:
            self.sibling = box
            yield

    def start(self, session: Session, hello: dict[str, Any]) -> None:
        """A Submit records the machine's limits last measured here (a benchmark refreshes
        them); the student's sandbox is kept to be stopped while they are measured."""
        self.student_box = session.box
        if self.judging.mode == Mode.SUBMIT:
            known = PEAKS.cached(self.peak_key())
            self.judging.env["peak"] = known.to_json() if known is not None else None
        return None

    def run_case(self, session: Session, index: int) -> TestResult:
        judging = self.judging
        case = self._cases[index]
        seed = case_seed(case, self.secret)
        call = case.make(torch.Generator().manual_seed(seed))
        upstream_seed = grad_seed(seed)
        cache = judging.expected_cache
        expected = cache.get((case.name, seed)) if cache is not None else None
        if expected is None:  # on clones of the inputs: ``call`` stays as made for the sandbox
            fn = getattr(self.reference, case.fn)
            expected = calls.execute_call(
                fn, list(call.args), dict(call.kwargs), case.grad_wrt, upstream_seed
            )
            if cache is not None:
                cache[(case.name, seed)] = expected
        limit = judging.package.limits.time_s
        reply, blob = session.request(
            protocol.call(case.fn, judging.device, list(case.grad_wrt), upstream_seed),
            limit + SLACK_S,
            f"test {case.name}",
            # CPU time on a CPU; on a GPU the kernel's time is not the host's CPU time, and
            # the device is held alone (the GPU lock): the wall clock stays the limit there.
            cpu_limit_s=limit if judging.device == "cpu" else None,
            args=list(call.args),
            kwargs=dict(call.kwargs),
        )
        time_ms = session.last_round_trip_ns / 1e6
        got = session.value(reply, blob, "obs")
        if not well_formed(got):
            raise Fault(Verdict.RE, CHANNEL_MESSAGE)
        got = clamped(got)
        if (judging.package.language == "cuda" and got.get("kind") == "raise"
                and got.get("type") in CUDA_FAULTS):  # sandbox/runner/cuda_load.py's
            verdict, fatal = CUDA_FAULTS[str(got.get("type"))]
            raise Fault(verdict, str(got.get("message", ""))[:1000], fatal=fatal)
        try:
            # Expected beside actual for a public test only: a hidden one's values stay here.
            outcome = compare(expected, got, case, judging.package.tolerances, show=case.public)
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
            compare=outcome.compare if case.public else None,
        )

    def after_tests(self, session: Session) -> tuple[BenchmarkResult | None, str]:
        """The benchmark of a Submit whose tests all passed, against the baseline's sandbox."""
        if self.baseline is None:
            return None, ""
        from sandbox.bench import run_benchmark

        judging = self.judging
        if judging.package.benchmark is None or not judging.package.benchmark.shapes:
            return None, ""  # the sibling holds the probe alone (``finish`` uses it)
        try:
            base_session, names = self.baseline_session()
        except Fault as fault:
            return None, fault.message
        peak = self.machine_peak(base_session, names)
        try:
            bench_device = "auto" if judging.package.device != "cpu" else "cpu"
            benchmark, wrong = run_benchmark(
                session, base_session, judging.package, bench_device, names, self._cases, peak,
                lambda: self.machine_peak(base_session, names, force=True),
            )
        except Fault as fault:
            if fault.verdict == Verdict.IE:  # the baseline's sandbox: ours
                return None, fault.message
            benchmark, wrong = None, TestResult("benchmark", False, fault.verdict, fault.message)
        if wrong is not None:
            judging.report(wrong)
        goodbye(base_session)
        return benchmark, ""

    def finish(self) -> None:
        """A Submit whose benchmark did not run (none, or a test failed) while no limits are
        known in this process: the baseline's sandbox, which holds only trusted code,
        measures them; a failure is logged, never the student's."""
        judging = self.judging
        if judging.mode != Mode.SUBMIT or self.baseline is None or self.probed:
            return
        if judging.env.get("peak") is not None:
            return
        # Not stopped meanwhile: its program may have ended (a dead container cannot be
        # paused, and a failed pause turns pausing off for the backend). A figure understated
        # by code left running there is measured again before it could reject anyone.
        self.student_box = None
        try:
            base_session, names = self.baseline_session()
        except Exception as exc:  # noqa: BLE001 - the sibling may be gone (an IE path): ours
            log.warning("no sandbox for the probe of the machine's limits: %s", exc)
            return
        self.machine_peak(base_session, names)
        goodbye(base_session)

    def peak_key(self) -> tuple[str, str]:
        """The machine's limits are kept per backend and device (a GPU problem's sandbox on a
        GPU host measures the GPU; a CPU problem's, the CPU set)."""
        judging = self.judging
        device = str(judging.env.get("device", "cpu")) if judging.device == "cuda" else "cpu"
        return judging.backend.name, device

    def machine_peak(
        self, base_session: Session, names: dict[str, str], force: bool = False
    ) -> Peak | None:
        """The machine's limits (sandbox/bench/peak.py), measured in the baseline's sandbox
        when none fresh are kept (or ``force``), with the student's sandbox stopped (code left
        spinning there would understate them, and a low figure is kept for an hour); None when
        the probe fails (logged: the benchmark goes on without a speed of light, nothing the
        student did)."""
        self.probed = True
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
        self.judging.env["peak"] = peak.to_json()
        return peak

    def baseline_session(self) -> tuple[Session, dict[str, str]]:
        """The baseline's own sandbox, its trusted file loaded, and the baselines' names in
        it; a Fault (IE) when it does not come up: nothing the student did."""
        assert self.baseline is not None
        judging = self.judging
        source, names = self.baseline
        try:
            box = self.sibling.box()
        except Exception as exc:
            log.exception("baseline sandbox start failed")
            raise Fault(Verdict.IE, f"the baseline's sandbox failed to start: {exc}") from None
        judging.env["baseline_sandbox"] = box.environment.get("sandbox", box.environment["backend"])
        session = _BaselineSession(box, judging.package.limits.output_kib)
        hello, _ = await_hello(session)
        if hello.get("device") != judging.env.get("device"):
            raise Fault(Verdict.IE, "the baseline's sandbox has another device")
        message = protocol.load(source, sorted(names.values()))
        reply, _ = session.request(message, IMPORT_TIMEOUT_S + SLACK_S, "the baseline's import")
        if reply.get("status") != "ok":
            error = reply.get("error")
            text = error.get("traceback") if isinstance(error, dict) else reply.get("missing")
            raise Fault(Verdict.IE, f"baseline kernel failed to load: {str(text)[-1500:]}")
        return session, names


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


class _BaselineBox(Closing):
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

    def close(self) -> None:
        """Wait for a start in progress (never leave a sandbox behind), then destroy it."""
        if self._thread is not None:
            self._thread.join()
        box, self._box = self._box, None
        if box is not None:
            box.close()


__all__ = ["TensorKind", "case_seed", "grader_environment"]

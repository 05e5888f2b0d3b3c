"""Where a judging's time goes, and a quiet CPU set for its timed phase (the grader's side).

``TimedBackend`` wraps the backend a judging uses; every sandbox it starts is a ``TimedSandbox``
that is told the ``op`` of each request the grader sends (by the grader, which built it) and
adds the time until the reply to a phase:

    setup           the grader's own start (tests and reference loaded) before the sandbox
    sandbox_start   backend.start() (a warm pool's hand-out, or a container start)
    runner_ready    waiting for the runner's hello (its interpreter and torch import)
    load            the ``load`` of a source (the student's file, a sibling's baseline)
    tests           the test calls (a scratch run's script)
    benchmark       every other request (preparing, timing, re-verifying)
    timing_wait     waiting for a quiet CPU set before the benchmark (see below)
    shutdown        ``bye`` and removing the sandboxes (in the background once the runner
                    said goodbye: off the verdict's path)
    sibling_start   the start of a second sandbox (the baseline's), done in a thread beside
                    the other phases: it overlaps them and is not part of their sum

The grader's own work between a reply and its next request (computing expected values with
the reference, comparing) goes to the phase of that next request. A sandbox started by the
same backend (a sibling that runs the baseline) counts in the same phases.

Timing precision: before the first benchmark request the wrapper calls ``before_timing`` (the
engine's: wait for this worker's CPU set to be quiet, take its host-wide lock); when the
judging's sandboxes are closed it calls ``after_timing``. Both are optional.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sandbox.host.backends.base import Backend, Sandbox, SandboxExit, SandboxSpec
from sandbox.runner.protocol import Op

PHASE_OF_OP: dict[str, str] = {Op.LOAD: "load", Op.CALL: "tests", Op.SCRIPT: "tests", Op.HARNESS: "tests",
                              Op.BYE: "shutdown"}
PHASES = ("sandbox_start", "runner_ready", "load", "tests", "benchmark", "shutdown")
# A sandbox whose runner said goodbye is removed after the verdict, off the judging's path.
_closer = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sandbox-close")
_pending: set[Future[Any]] = set()
_pending_lock = threading.Lock()


class PhaseClock:
    """Seconds per phase of one judging. One grader thread drives the judging's sandboxes in
    alternation, so its wall time is cut at each request and reply and every piece is counted
    once, from the first sandbox's start to the last one's removal. A sibling started in a
    thread of its own beside the tests is counted apart (``sibling_start``, overlapping)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.sandboxes = 0
        self.phase = "sandbox_start"
        self.mark = time.monotonic()
        self._lock = threading.Lock()

    def add(self, phase: str, seconds: float) -> None:
        with self._lock:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + max(0.0, seconds)

    def cut(self, phase: str, next_phase: str | None = None) -> None:
        """The time since the last cut belongs to ``phase``; from now on, to ``next_phase``."""
        now = time.monotonic()
        with self._lock:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + max(0.0, now - self.mark)
            self.mark = now
            if next_phase is not None:
                self.phase = next_phase

    def as_dict(self) -> dict[str, float]:
        with self._lock:
            return {name: round(s, 4) for name, s in self.seconds.items()}


class TimedSandbox(Sandbox):
    """A sandbox whose requests are timed by phase; everything else is the wrapped one's."""

    def __init__(self, inner: Sandbox, owner: TimedBackend) -> None:
        self._inner = inner
        self._owner = owner
        self._spoken_to = False
        self._said_bye = False
        self._closed = False
        self._final_stall_us: int | None = None  # read just before it was closed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def send(self, frame: bytes, op: str = "") -> None:
        clock = self._owner.clock
        phase = PHASE_OF_OP.get(op, "benchmark")
        if phase == "benchmark":
            clock.cut(clock.phase)
            self._owner.entering_benchmark()
            clock.cut("timing_wait")  # a wait for a quiet CPU set is not the benchmark's
        # The grader's work since the last reply belongs to the request it prepared.
        clock.cut(phase, phase)
        self._spoken_to = True
        self._said_bye = op == "bye"
        self._inner.send(frame, op)

    def recv(self, timeout_s: float) -> bytes:
        clock = self._owner.clock
        if not self._spoken_to:  # the runner's hello: the wait is its start-up
            clock.cut(clock.phase, "runner_ready")
        try:
            return self._inner.recv(timeout_s)
        except Exception:
            self._said_bye = False
            raise
        finally:
            clock.cut(clock.phase)

    def quiet(self, on: bool) -> bool:
        return self._inner.quiet(on)

    def cpu_ns(self) -> int | None:
        return self._inner.cpu_ns()

    def cpu_stall_us(self) -> int | None:
        """The wrapped one's; once closed, its last reading (its cgroup is gone then, and the
        timing's pressure is read after the last sandbox closed)."""
        if self._closed:
            return self._final_stall_us
        return self._inner.cpu_stall_us()

    def processes(self) -> int | None:
        return self._inner.processes()

    def close(self) -> SandboxExit:
        if self._closed:
            return self._inner.close()
        if self._owner.timing:
            self._final_stall_us = self._inner.cpu_stall_us()
        self._closed = True
        clock = self._owner.clock
        clock.cut(clock.phase, "shutdown")
        try:
            if self._said_bye and self._owner.close_in_background:
                # The runner answered goodbye: nothing more to learn from its exit.
                _close_later(self._inner)
                return SandboxExit(None, False, False, "", False)
            return self._inner.close()
        finally:
            clock.cut("shutdown")
            self._owner.sandbox_closed()

    @property
    def environment(self) -> dict[str, str]:
        return self._inner.environment


def _close_later(box: Sandbox) -> None:
    future = _closer.submit(box.discard)
    with _pending_lock:
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future[Any]) -> None:
    with _pending_lock:
        _pending.discard(future)


def wait_for_closes(timeout_s: float = 30.0) -> None:
    """Wait until the sandboxes handed to the background closer are removed (a worker
    process's shutdown, tests)."""
    deadline = time.monotonic() + timeout_s
    while True:
        with _pending_lock:
            pending = list(_pending)
        if not pending or time.monotonic() > deadline:
            return
        pending[0].exception(timeout=max(0.0, deadline - time.monotonic()))


class TimedBackend(Backend):
    """Starts sandboxes through ``inner`` and times one judging's phases across them."""

    def __init__(
        self,
        inner: Backend,
        *,
        before_timing: Callable[[], None] | None = None,
        after_timing: Callable[[], None] | None = None,
        close_in_background: bool = True,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.clock = PhaseClock()
        self.close_in_background = close_in_background
        self._before_timing = before_timing
        self._after_timing = after_timing
        self._timing = False
        self._open = 0
        self._lock = threading.Lock()
        self.boxes: list[TimedSandbox] = []  # every sandbox started for this judging

    @property
    def timing(self) -> bool:
        """Between the first benchmark request and the release of what it took."""
        return self._timing

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def start(self, spec: SandboxSpec) -> Sandbox:
        return self._start(self.inner.start, spec)

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        return self._start(self.inner.start_trusted, spec)

    def _start(self, start_with: Callable[[SandboxSpec], Sandbox], spec: SandboxSpec) -> Sandbox:
        with self._lock:
            first = self.clock.sandboxes == 0
            self.clock.sandboxes += 1
        start = time.monotonic()
        if first:
            self.clock.cut("setup", "sandbox_start")  # the grader's set-up before the start
        box = start_with(spec)
        if first:
            self.clock.cut("sandbox_start")
        else:  # a sibling, started beside the other phases: counted apart, overlapping
            self.clock.add("sibling_start", time.monotonic() - start)
        timed = TimedSandbox(box, self)
        with self._lock:
            self._open += 1
            self.boxes.append(timed)
        return timed

    def entering_benchmark(self) -> None:
        with self._lock:
            if self._timing:
                return
            self._timing = True
        if self._before_timing is not None:
            self._before_timing()

    def sandbox_closed(self) -> None:
        with self._lock:
            self._open -= 1
            done = self._open <= 0 and self._timing
            if done:
                self._timing = False
        if done and self._after_timing is not None:
            self._after_timing()

    def finish(self) -> None:
        """The judging is over: release what ``before_timing`` took, if a sandbox's close did
        not (idempotent)."""
        with self._lock:
            done, self._timing = self._timing, False
        if done and self._after_timing is not None:
            self._after_timing()

    def reap(self, older_than_s: float) -> int:
        return self.inner.reap(older_than_s)

    def close(self) -> None:
        self.inner.close()

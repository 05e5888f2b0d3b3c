"""A trusted sandbox kept between judgings: the baseline's sibling of a Submit.

The baseline's sandbox only ever runs trusted code (the kernels source the grader loads into
it) on inputs the grader builds: nothing of a student reaches it, so, unlike the student's own
sandbox, it need not be thrown away after one judging. A long-lived backend (a worker process
with a warm pool) keeps it, per set of limits, for the next Submit: a Submit then takes one
sandbox from the warm pool instead of two, and skips a runner start (a container and a torch
import, 1-3 s of CPU on the judging's own CPU set).

The grader needs no change: ``KeptSandbox`` replays the runner's hello to each new judging
and answers its goodbye itself (the runner stays up). The goodbye gives the sandbox back to the
keeper when nothing went wrong with it (at once, not when the judging's sandboxes are removed
after its verdict, so a Submit right after finds it); ``close`` destroys it otherwise (any
channel error, a timeout, a judging that ended without its goodbye). The next judging's ``load`` replaces the
loaded module (sandbox/runner/server.py).

Bounds: a kept sandbox is retired once ``max_age_s`` has passed since it started (the orphan
sweep removes sandboxes by age: a kept one must never be old enough to look orphaned), or when
it has sat idle for ``max_idle_s``; GPU sandboxes are never kept (each holds its GPU's lock).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable

from sandbox.host.backends.base import (
    Sandbox,
    SandboxError,
    SandboxExit,
    SandboxSpec,
    SandboxTimeout,
)
from sandbox.runner import framing
from sandbox.runner.protocol import Op

_GOODBYE = framing.encode_frame({"ok": True})


class _Kept:
    """A started sandbox and what the keeper knows of it."""

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self.born = time.monotonic()
        self.idle_since = self.born
        self.hello: bytes | None = None  # the runner's hello frame, once read
        self.uses = 0


class TrustedKeeper:
    """Hands out ``KeptSandbox``es: a kept one with the same limits when there is one, else a
    freshly started one (``start``), which is kept when its judging gives it back whole."""

    def __init__(
        self,
        start: Callable[[SandboxSpec], Sandbox],
        key: Callable[[SandboxSpec], Hashable],
        max_age_s: float = 120.0,
        max_idle_s: float = 60.0,
    ) -> None:
        self._start = start
        self._key = key
        self.max_age_s = max_age_s
        self.max_idle_s = max_idle_s
        self._idle: dict[Hashable, _Kept] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.reused = 0
        self.started = 0

    def take(self, spec: SandboxSpec) -> KeptSandbox:
        key = self._key(spec)
        with self._lock:
            kept = self._idle.pop(key, None)
            stale = [k for k, v in self._idle.items() if not self._fit(v)]
            retired = [self._idle.pop(k) for k in stale]
        for old in retired:
            old.box.close()
        if kept is not None and (not self._fit(kept) or not _alive(kept.box)):
            kept.box.close()
            kept = None
        if kept is not None:
            rearm = getattr(kept.box, "rearm", None)
            if rearm is not None:
                rearm(spec)  # its wall-clock limit is this judging's from now
            self.reused += 1
        else:
            kept = _Kept(self._start(spec))
            self.started += 1
        kept.uses += 1
        return KeptSandbox(self, kept, key)

    def _fit(self, kept: _Kept) -> bool:
        now = time.monotonic()
        return now - kept.born < self.max_age_s and now - kept.idle_since < self.max_idle_s

    def give_back(self, kept: _Kept, key: Hashable) -> None:
        """Keep it for the next judging (replacing an older one with the same limits); it is
        destroyed if no judging takes it within ``max_idle_s``."""
        kept.idle_since = time.monotonic()
        with self._lock:
            if self._closed or not self._fit(kept):
                old: _Kept | None = kept
            else:
                old = self._idle.pop(key, None)
                self._idle[key] = kept
        if old is not None:
            old.box.close()
        if old is not kept:
            timer = threading.Timer(self.max_idle_s, self._expire, args=(key, kept))
            timer.daemon = True
            timer.start()

    def _expire(self, key: Hashable, kept: _Kept) -> None:
        with self._lock:
            if self._idle.get(key) is not kept or self._fit(kept):
                return
            del self._idle[key]
        kept.box.close()

    def idle_count(self) -> int:
        with self._lock:
            return len(self._idle)

    def close(self) -> None:
        """Destroy every kept sandbox; nothing is kept from now on."""
        with self._lock:
            self._closed = True
            kept, self._idle = list(self._idle.values()), {}
        for item in kept:
            item.box.close()


def _alive(box: Sandbox) -> bool:
    alive = getattr(box, "alive", None)
    return bool(alive(check_state=False)) if alive is not None else True


class KeptSandbox(Sandbox):
    """One judging's use of a kept (or newly started) trusted sandbox."""

    def __init__(self, keeper: TrustedKeeper, kept: _Kept, key: Hashable) -> None:
        self._keeper = keeper
        self._kept = kept
        self._key = key
        self._replay = kept.hello  # a kept runner's hello, shown to this judging first
        self._said_bye = False
        self._healthy = True
        self._waiting = False  # a recv timed out and no frame came since
        self._done = False

    @property
    def reused(self) -> bool:
        return self._kept.uses > 1

    def send(self, frame: bytes, op: str = "") -> None:
        if self._said_bye:
            raise SandboxError("the judging already said goodbye to this sandbox")
        if op == Op.BYE:
            # Answered by recv; the runner stays up for the next judging, to which it goes
            # back now: nothing of this judging touches it after its goodbye.
            self._said_bye = True
            if self._healthy and not self._waiting and self._kept.hello is not None:
                self._done = True
                self._keeper.give_back(self._kept, self._key)
            return
        try:
            self._kept.box.send(frame, op)
        except BaseException:
            self._healthy = False
            raise

    def recv(self, timeout_s: float) -> bytes:
        if self._replay is not None:
            frame, self._replay = self._replay, None
            return frame
        if self._said_bye:
            return _GOODBYE
        try:
            frame = self._kept.box.recv(timeout_s)
        except SandboxTimeout:
            # A call still running (the grader reads CPU time between short waits: sandbox/
            # session.py): not given back until it answers; a fault closes it instead.
            self._waiting = True
            raise
        except BaseException:
            self._healthy = False
            raise
        self._waiting = False
        if self._kept.hello is None:
            self._kept.hello = frame  # the first frame of a runner is its hello
        return frame

    def close(self) -> SandboxExit:
        """Destroy it, unless its goodbye already gave it back to the keeper (a judging that
        ended without one, or after a fault, leaves a runner in a state nobody knows)."""
        if self._done:
            return SandboxExit(None, False, False, "", False)
        self._done = True
        return self._kept.box.close()

    def discard(self) -> None:
        self.close()

    def quiet(self, on: bool) -> bool:
        return self._kept.box.quiet(on)

    def cpu_ns(self) -> int | None:
        return self._kept.box.cpu_ns()

    def cpu_stall_us(self) -> int | None:
        return self._kept.box.cpu_stall_us()

    def processes(self) -> int | None:
        return self._kept.box.processes()

    @property
    def environment(self) -> dict[str, str]:
        env = dict(self._kept.box.environment)
        if self.reused:
            env["sandbox"] = "kept"
        return env

"""A warm pool of pre-started, single-use Docker sandboxes (opt-in: ``pool_size`` > 0).

Starting a sandbox costs a container start (~0.3 s) and the runner's torch import (1-3 s).
The pool starts sandboxes ahead of time with the limits the last judging asked for; the
runner's first frame ("hello", sent once torch is imported) stays unread in the socket, so a
grader that takes a pooled sandbox reads it as from a fresh one and needs no change. Each
sandbox is used once and destroyed as usual; no submission was ever loaded into a pooled one.

Refills run in a background thread while the judging that took a sandbox goes on. A judging
about to time its benchmark calls ``quiet()``: refills pause and it waits (bounded) for the
pool's container start in flight and freezes its sandboxes still importing torch, which would
otherwise share its CPU set (``docker pause``; where the engine has no freezer it waits, bounded,
for their imports to end, and removes what is still importing then: a lower CPU weight still
took the CPU whenever the timed sandbox waited for the grader); ``resume()`` thaws them when the
judging's sandboxes are closed. A Submit also holds refills from its start (``hold``). A take that finds the pool empty while a refill is starting one
waits for that one rather than start a second beside it (on a busy host two starts at once
each take twice as long).

Kept out of the pool: GPU sandboxes (an idle one would hold its GPU lock), sandboxes older
than ``max_idle_s`` (they are replaced), and dead ones (checked before hand-out). A pooled
container carries the label ``tensor-judge.pooled=1``; the spec's own labels, known only at
hand-out, cannot be added to it afterwards.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from sandbox.host.backends.base import SandboxSpec

log = logging.getLogger(__name__)

POOLED_LABEL = "tensor-judge.pooled"
# A refill starts the next sandbox once the last one has said hello (its torch import done)
# or has been importing for IMPORT_OVERLAP_S (an import takes 1.3-2 s of one CPU), and at the
# latest after IMPORT_WAIT_S.
IMPORT_OVERLAP_S = 1.0
IMPORT_WAIT_S = 15.0
# A warm sandbox idle this long is replaced (its age counts toward JUDGE_ORPHAN_AGE_S).
POOL_MAX_IDLE_S = 300.0
# Who started a pooled sandbox: JUDGE_POOL_OWNER where set, else the worker's host name (its
# container's, under compose). A shutdown removes its owner's sandboxes only, so two judges on
# one engine and one host (a test run beside a worker started by hand) need owners of their own.
OWNER_LABEL = "tensor-judge.pool-owner"


def pool_owner() -> str:
    """The owner label of the pooled sandboxes this process starts."""
    return os.environ.get("JUDGE_POOL_OWNER", "").strip() or socket.gethostname()


def pool_key(spec: SandboxSpec) -> tuple[int, int, int, int, int, str | None]:
    """The limits a pooled sandbox was created with; it serves only specs with the same."""
    return (
        spec.memory_mib, spec.pids, spec.tmpfs_mib, spec.output_kib, spec.max_frame_mib,
        spec.cpuset,
    )  # fmt: skip


class PooledBox(Protocol):
    """What the pool needs of a sandbox it keeps (sandbox/host/backends/docker.py's DockerSandbox)."""

    @property
    def spec(self) -> SandboxSpec: ...
    def close(self) -> Any: ...
    def discard(self) -> None: ...
    def alive(self, check_state: bool = True) -> bool: ...
    def heard(self) -> bool: ...
    def has_spoken(self) -> bool: ...
    def freeze(self, pause_only: bool = False) -> bool: ...
    def thaw(self) -> None: ...
    def rearm(self, spec: SandboxSpec) -> None: ...


class WarmPool:
    """``start(spec)`` starts one sandbox for the pool (the backend's, bound to its image): the
    pool knows nothing of how, so it imports no backend."""

    def __init__(
        self, start: Callable[[SandboxSpec], PooledBox], size: int,
        max_idle_s: float = POOL_MAX_IDLE_S,
    ) -> None:
        self._start = start
        self.size = size
        self.max_idle_s = max_idle_s
        self._ready: list[tuple[float, PooledBox]] = []
        self._template: SandboxSpec | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._starting = 0  # refills in flight
        self._refilling = False  # the refill thread was woken and has not finished
        self._paused = 0  # judgings timing their benchmark (refills wait)
        self._frozen: list[PooledBox] = []  # warm sandboxes paused during a timing
        # Handed out while still importing torch (a judging waits for its hello): their import
        # holds back the next refill's as one in the pool would (``heard``: no socket access).
        self._handed: list[tuple[float, PooledBox]] = []
        self._changed = threading.Condition(self._lock)
        self.hits = 0
        self.misses = 0
        self.waited_hits = 0

    def take(self, spec: SandboxSpec, wait_s: float = 10.0) -> PooledBox | None:
        """A ready sandbox with ``spec``'s limits, re-armed with its wall-clock limit, or None.
        Either way the pool learns ``spec``'s limits and refills in the background. When none
        is ready but a refill with these limits is starting one, wait for it up to ``wait_s``."""
        if spec.gpu_id is not None or self.size <= 0:
            return None
        with self._lock:  # a pool that is only learning these limits has nothing coming
            known = self._template is not None and pool_key(self._template) == pool_key(spec)
        found = self._take_ready(spec)
        if found is None and wait_s > 0 and known:
            deadline = time.monotonic() + wait_s
            with self._lock:
                self._refilling = not self._paused  # the woken refill thread will start one
            self._ensure_thread()
            self._wake.set()
            with self._lock:
                while (
                    not self._ready
                    and (self._starting or self._refilling)
                    and not self._closed
                    and self._template is not None
                    and pool_key(self._template) == pool_key(spec)
                    and time.monotonic() < deadline
                ):
                    self._changed.wait(timeout=max(0.0, deadline - time.monotonic()))
            found = self._take_ready(spec)
            if found is not None:
                self.waited_hits += 1
        if found is not None:
            try:
                found.rearm(spec)
            except Exception as exc:  # not pinned: not fit to be timed; a fresh one instead
                log.warning("warm pool: could not hand out a sandbox: %s", exc)
                found.close()
                found = None
        if found is not None:
            self.hits += 1
            if not found.has_spoken():  # handed out mid-import: the next refill waits for it
                with self._lock:
                    self._handed.append((time.monotonic(), found))
        else:
            self.misses += 1
        self._ensure_thread()
        self._wake.set()
        return found

    def _take_ready(self, spec: SandboxSpec) -> PooledBox | None:
        key = pool_key(spec)
        found: PooledBox | None = None
        stale: list[PooledBox] = []
        with self._lock:
            self._template = replace(spec, labels={})
            keep: list[tuple[float, PooledBox]] = []
            now = time.monotonic()
            for born, box in self._ready:
                # Another shape is not kept: the pool follows the latest judging's limits.
                if (
                    now - born > self.max_idle_s
                    or pool_key(box.spec) != key
                    or not box.alive(check_state=False)
                ):
                    stale.append(box)
                elif found is None:
                    found = box
                else:
                    keep.append((born, box))
            self._ready = keep
            thaw = found is not None and found in self._frozen
            if thaw and found is not None:
                self._frozen.remove(found)
        if thaw and found is not None:
            found.thaw()
        for box in stale:
            box.close()
        return found

    def quiet(self, timeout_s: float) -> bool:
        """Pause refills, wait (up to ``timeout_s``) for a container start in flight, and
        freeze the sandboxes still importing torch: they share the CPU set of the judging about
        to be timed. ``resume()`` thaws them. True when nothing of the pool can run meanwhile."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            self._paused += 1
            while self._starting and time.monotonic() < deadline:
                self._changed.wait(timeout=max(0.0, deadline - time.monotonic()))
            starting = self._starting
            busy = [box for _, box in self._ready if not box.has_spoken()]
        quiet = starting == 0
        frozen = [box for box in busy if box.freeze(pause_only=True)]
        with self._lock:
            self._frozen.extend(frozen)
        busy = [box for box in busy if box not in frozen]
        # No freezer in this engine: a lower CPU weight is no stop (it still takes the CPU
        # whenever the timed sandbox waits on the grader, and each request then waits for its
        # time slice: a benchmark of problem 48 took 3.4 s beside one, 1.4 s without). Wait
        # for its import to end (the timing starts that much later), up to ``deadline``.
        while busy and time.monotonic() < deadline:
            time.sleep(0.02)
            busy = [box for box in busy if not box.has_spoken()]
        for box in busy:  # still importing at the deadline: dropped, replaced after the timing
            with self._lock:
                self._ready = [(born, b) for born, b in self._ready if b is not box]
            box.discard()
        return quiet

    def hold(self) -> None:
        """A judging with a timed phase begins: start no refill until its ``resume()`` (a
        refill started now would still be importing torch on its CPU set when the timing
        begins; it is started after the timing instead)."""
        with self._lock:
            self._paused += 1

    def resume(self) -> None:
        """A timed phase is over: thaw what ``quiet`` froze; refills may go on."""
        with self._lock:
            self._paused = max(0, self._paused - 1)
            frozen, self._frozen = (self._frozen, []) if not self._paused else ([], self._frozen)
        for box in frozen:
            box.thaw()
        self._wake.set()

    def ready_count(self) -> int:
        with self._lock:
            return len(self._ready)

    def close(self) -> None:
        """Destroy every idle sandbox and stop refilling."""
        self._closed = True
        self._wake.set()
        with self._lock:
            self._changed.notify_all()
        with self._lock:
            boxes, self._ready = [box for _, box in self._ready], []
            frozen, self._frozen = self._frozen, []
        for box in frozen:
            box.thaw()  # a paused container cannot be killed
        for box in boxes:
            box.close()

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._refill_forever, name="sandbox-pool", daemon=True
            )
            self._thread.start()

    def _refill_forever(self) -> None:
        while not self._closed:
            self._wake.wait(timeout=self.max_idle_s / 2)
            self._wake.clear()
            with contextlib.suppress(Exception):
                self._refill_once()
            with self._lock:
                self._refilling = False
                self._changed.notify_all()

    def _refill_once(self) -> None:
        now = time.monotonic()
        with self._lock:
            template = self._template
            expired = [box for born, box in self._ready if now - born > self.max_idle_s]
            self._ready = [(b, box) for b, box in self._ready if now - b <= self.max_idle_s]
        for box in expired:
            box.close()
        import_wait_until: float | None = None
        while template is not None and not self._closed:
            with self._lock:
                if self._paused or len(self._ready) >= self.size:
                    return  # resume() or the next take wakes the thread again
                # Imports one after another: two on the worker's one CPU each take twice as
                # long, and the next judging would find neither warm. The next container starts
                # once the last import has run IMPORT_OVERLAP_S (its start, mostly the engine's
                # work, overlaps the end of that import and the CPU is never idle in a burst).
                now = time.monotonic()
                self._handed = [
                    (born, box)
                    for born, box in self._handed
                    if not box.heard() and now - born < IMPORT_OVERLAP_S
                ]
                wait = False
                if self._handed or any(
                    not box.has_spoken() and now - born < IMPORT_OVERLAP_S
                    for born, box in self._ready
                ):
                    if import_wait_until is None:
                        import_wait_until = now + IMPORT_WAIT_S
                    wait = now < import_wait_until
                if not wait:
                    import_wait_until = None
                    self._starting += 1
            if wait:
                time.sleep(0.02)
                continue
            # Limited only by max idle: the wall clock re-arms at hand-out.
            spec = replace(
                template,
                wall_time_s=self.max_idle_s + 60.0,
                labels={POOLED_LABEL: "1", OWNER_LABEL: pool_owner()},
            )
            try:
                box = self._start(spec)
            except Exception as exc:
                log.warning("warm pool: could not start a sandbox: %s", exc)
                with self._lock:
                    self._starting -= 1
                    self._changed.notify_all()
                return
            with self._lock:
                self._starting -= 1
                self._changed.notify_all()
                if not self._closed:
                    self._ready.append((time.monotonic(), box))
                    continue
            box.close()
            return


def remove_pooled(client: Any, owner: str | None = None) -> int:
    """Remove the pooled sandboxes ``owner`` (default: ``pool_owner()``) started, idle or handed out:
    what a worker does when it shuts down, after its last judging, should a pool's own close
    not have run (a worker process killed at the end of its shutdown)."""
    owner = owner or pool_owner()
    removed = 0
    filters = {"label": [f"{POOLED_LABEL}=1", f"{OWNER_LABEL}={owner}"]}
    # sparse: no inspect per container, which fails for one removed meanwhile
    for container in client.containers.list(all=True, sparse=True, filters=filters):
        with contextlib.suppress(Exception):
            container.remove(force=True)
            removed += 1
    return removed


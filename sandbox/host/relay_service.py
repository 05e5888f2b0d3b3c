"""The sandbox backend as a service, the launcher's side (it holds the keys): ``BoxService``
serves one job's sandbox requests from the confined grader (the protocol and the grader's side
are sandbox/grader/relay.py) with the worker's own backend, within ``Bounds``.

The launcher decides what the grader may not (``BoxService``): labels, GPU
and trust domain of every sandbox are the launcher's own; a ``trusted`` start (a sandbox that
may be kept for a later judging) is honoured for the built-in catalog's grader only, any other
domain gets a fresh sandbox used once; limits beyond the package's validated ones (``Bounds``)
are refused, the wall time is clamped to the job's; a wait for a frame is bounded by the
longest a judging asks for; the number of sandboxes open at once is capped, and every sandbox is
closed when the job ends, whatever the grader did. No Django, no torch.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sandbox.grader.contracts import (
    SLACK_S,
    STARTUP_TIMEOUT_S,
    Limits,
    import_limit_s,
    load_wait_s,
    program_wait_s,
)
from sandbox.grader.relay import ERRORS, exit_to_json, spec_from_json
from sandbox.host.backends.base import Backend, Sandbox, SandboxError, SandboxSpec
from sandbox.runner import protocol

MAX_OPEN_BOXES = 4  # open at once for one job: the student's and the baseline's, and spare
# The trust domain of the repository's own problems (judge_site/worker/confinement.py):
# the only one whose grader may have a sandbox kept between judgings (the baseline's, which
# runs the catalog's kernels; sandbox/host/backends/kept.py).
CATALOG_DOMAIN = "catalog"



@dataclass(frozen=True)
class Bounds:
    """What one job's sandboxes may have, decided by the launcher from the package's validated
    limits (sandbox/problem.py, LIMIT_BOUNDS): every count at least 1 and at most these (a 0
    would mean "unlimited" to Docker), a wall time clamped to the job's, a wait for one frame
    no longer than the longest a judging asks for (a runner's start-up, or a test's limit)."""

    memory_mib: int
    pids: int
    tmpfs_mib: int
    output_kib: int
    max_frame_mib: int
    wall_time_s: float
    recv_s: float

    @classmethod
    def of(cls, limits: Limits, requires: list[str], wall_time_s: float,
           language: str = "python", harness: bool = False) -> Bounds:
        """``language`` and ``harness``: a CUDA load waits for its compile, a practice test
        program for its compile and run (the grader's own waits: sandbox/grader/contracts.py)."""
        longest = max(STARTUP_TIMEOUT_S, import_limit_s(limits.time_s, requires), limits.time_s,
                      load_wait_s(limits.time_s, requires, language) - SLACK_S,
                      program_wait_s(limits.time_s) - SLACK_S if harness else 0.0)
        return cls(
            memory_mib=limits.memory_mib, pids=limits.pids, tmpfs_mib=limits.tmpfs_mib,
            output_kib=limits.output_kib, max_frame_mib=256, wall_time_s=float(wall_time_s),
            recv_s=longest + SLACK_S,
        )

    def check(self, spec: SandboxSpec) -> str:
        """'' when ``spec`` is within these bounds (its wall time aside), else why not."""
        for name in ("memory_mib", "pids", "tmpfs_mib", "output_kib", "max_frame_mib"):
            value, high = getattr(spec, name), getattr(self, name)
            if type(value) is not int or not 1 <= value <= high:
                return f"{name}={value!r} is outside 1..{high} (the package's limits)"
        wall = spec.wall_time_s
        if type(wall) not in (int, float) or not 0 < wall < float("inf"):
            return f"wall_time_s={wall!r} is not a positive number of seconds"
        return ""


# ------------------------------------------------------------------ launcher side (the keys)


class BoxService:
    """Serves one job's sandbox requests with the launcher's backend. ``labels``, ``gpu_id``
    and ``domain`` (the job's trust domain) override whatever the grader asked; a spec beyond
    ``bounds`` is refused; every sandbox it started is closed by ``close_all``."""

    def __init__(self, backend: Backend, labels: dict[str, str], gpu_id: str | None, *,
                 domain: str, bounds: Bounds) -> None:
        self.backend = backend
        self.labels = labels
        self.gpu_id = gpu_id
        self.domain = domain
        self.bounds = bounds
        self.boxes: dict[int, Sandbox] = {}
        self._deadlines: dict[int, float] = {}  # box -> when its wall time ends (monotonic)
        self._lock_holders: set[int] = set()  # open boxes that took the GPU's lock
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.started = 0
        self.refused: list[str] = []  # why each refused start was refused (the log and tests)

    def handle(self, message: dict[str, Any], blob: bytes) -> tuple[dict[str, Any], bytes]:
        rpc = message.get("rpc")
        try:
            if rpc == "start":
                return self._start(message), b""
            box = self.boxes.get(message.get("box"))  # type: ignore[arg-type]
            if box is None:
                return {"error": {"type": "SandboxDied", "message": "no such sandbox"}}, b""
            op = protocol.known_op(message.get("op"))  # the request says it; never parsed from the frame
            if rpc == "send":
                box.send(blob, op)
                return {}, b""
            if rpc in ("recv", "exchange"):
                timeout: Any = message.get("timeout_s")
                if type(timeout) not in (int, float) or not 0 <= float(timeout) <= self.bounds.recv_s:
                    return {"error": {"type": "SandboxError",
                                      "message": f"bad timeout: from 0 to {self.bounds.recv_s:g} s"}}, b""
                # Never past the sandbox's own end: its wall-clock kill answers then anyway.
                left = self._deadlines.get(message["box"], 0.0) - time.monotonic()
                timeout = max(0.0, min(float(timeout), left + 1.0))
                if rpc == "exchange":
                    box.send(blob, op)
                frame = box.recv(float(timeout))
                # The count the grader asks for right after every reply (sandbox/grader/session.py):
                # read here, it saves a round trip through the relay per test.
                return {"processes": box.processes()}, frame
            if rpc == "close":
                self._forget(message["box"])
                return {"exit": exit_to_json(box.close())}, b""
            if rpc == "discard":
                self._forget(message["box"])
                box.discard()
                return {}, b""
            if rpc == "quiet":
                return {"value": box.quiet(bool(message.get("on")))}, b""
            if rpc == "cpu_ns":
                return {"value": box.cpu_ns()}, b""
            if rpc == "cpu_stall_us":
                return {"value": box.cpu_stall_us()}, b""
            if rpc == "processes":
                return {"value": box.processes()}, b""
        except SandboxError as exc:
            return {"error": {"type": type(exc).__name__ if type(exc).__name__ in ERRORS
                              else "SandboxError", "message": str(exc), "exit": exit_to_json(exc.exit)}}, b""
        return {"error": {"type": "RelayError", "message": f"unknown request {rpc!r}"}}, b""

    def _forget(self, ident: Any) -> None:
        with self._lock:
            self.boxes.pop(ident, None)
            self._deadlines.pop(ident, None)
            self._lock_holders.discard(ident)

    def _refuse(self, why: str) -> dict[str, Any]:
        self.refused.append(why)
        return {"error": {"type": "RelayError", "message": f"refused: {why}"}}

    def _start(self, message: dict[str, Any]) -> dict[str, Any]:
        raw = message.get("spec")
        if not isinstance(raw, dict):
            return self._refuse("no spec")
        try:
            spec = spec_from_json(raw)
        except TypeError as exc:
            return self._refuse(f"bad spec: {exc}")
        why = self.bounds.check(spec)
        if why:
            return self._refuse(why)
        with self._lock:
            if len(self.boxes) >= MAX_OPEN_BOXES:
                return self._refuse("too many sandboxes open at once")
            self.started += 1
            # "The GPU's lock is already held": true only while a sandbox of this job that
            # took it is open (never a way for a grader to skip the lock and share the GPU).
            lock_held = bool(spec.gpu_lock_held and self.gpu_id is not None and self._lock_holders)
        spec = dataclasses.replace(
            spec, labels=dict(self.labels), gpu_id=self.gpu_id, trust_domain=self.domain,
            gpu_lock_held=lock_held,
            cpuset=None, wall_time_s=min(float(spec.wall_time_s), self.bounds.wall_time_s),
        )
        # Trust is the launcher's to give: only the catalog's grader runs nothing but the
        # catalog's code in the sandbox it calls the baseline's, so only its sandbox may be
        # kept for a later judging; any other domain's "trusted" box is a fresh one, used once.
        trusted = bool(message.get("trusted")) and self.domain == CATALOG_DOMAIN
        start: Callable[[SandboxSpec], Sandbox] = (
            self.backend.start_trusted if trusted else self.backend.start
        )
        box = start(spec)
        with self._lock:
            ident = next(self._ids)
            self.boxes[ident] = box
            self._deadlines[ident] = time.monotonic() + spec.wall_time_s
            if spec.gpu_id is not None and not spec.gpu_lock_held:
                self._lock_holders.add(ident)
        return {"box": ident, "environment": dict(box.environment)}

    def close_all(self) -> None:
        with self._lock:
            boxes, self.boxes = list(self.boxes.values()), {}
            self._deadlines.clear()
            self._lock_holders.clear()
        for box in boxes:
            try:
                box.close()
            except Exception:  # noqa: BLE001,S110 - closing is best effort; the reaper follows
                pass

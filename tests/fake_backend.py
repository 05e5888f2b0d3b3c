"""The suite's one fake sandbox backend, and one wrapper that records what is asked of any
backend (sandbox/host/backends/base.py's interface, method for method).

``FakeBackend`` starts ``FakeSandbox``es that run nothing: the test chooses how they answer
(a fixed reply, an echo of the last frame, or never asked), what their cgroup's CPU pressure
reads, and what a sweep of orphans finds. ``RecordingBackend`` wraps a real backend or a fake
one and records each start (through which door, with which spec), each sandbox it handed out,
each close of one, and each sweep; it can refuse starts past a count, as a failing engine would.
"""

from __future__ import annotations

import threading
from typing import Literal

from sandbox.host.backends.base import Backend, Sandbox, SandboxExit, SandboxSpec
from sandbox.runner import framing

# How a fake sandbox answers a recv: "reply", one fixed frame ({"op": "reply"}), the runner's
# hello included; "echo", the last frame it was sent; None, never (a recv fails the test).
Answer = Literal["reply", "echo"] | None

REPLY = framing.encode_frame({"op": "reply"})


class FakeSandbox(Sandbox):
    """A sandbox that runs nothing; records the frames (``sent``) sent to it."""

    def __init__(self, backend: FakeBackend, answer: Answer, stall_us: int | None) -> None:
        self.backend = backend
        self.answer = answer
        self.stall_us = stall_us  # its cgroup's CPU pressure; None: cannot tell
        self.sent: list[bytes] = []
        self.closed = threading.Event()

    def send(self, frame: bytes, op: str = "") -> None:
        self.sent.append(frame)
        self.backend.ops.append(op)

    def recv(self, timeout_s: float) -> bytes:
        if self.answer == "reply":
            return REPLY
        if self.answer == "echo":
            return self.sent[-1]
        raise AssertionError("not asked")

    def close(self) -> SandboxExit:
        self.closed.set()
        return SandboxExit(0, False, False, "", False)

    @property
    def environment(self) -> dict[str, str]:
        return {"backend": self.backend.name}

    def cpu_stall_us(self) -> int | None:
        return None if self.closed.is_set() else self.stall_us  # its cgroup goes with it


class FakeBackend(Backend):
    """Starts ``FakeSandbox``es answering as ``answer`` says, with ``stall_us`` of CPU pressure
    (each box's own ``stall_us`` may be changed later). ``boxes``: every one started, in order;
    ``ops``: the op of every frame sent to any of them, in order. A sweep finds ``orphans``, or
    raises ConnectionError(``reap_fails``) as an unreachable engine would. ``cpuset``: the CPU
    set it pins its sandboxes to, as the local and docker backends say theirs."""

    def __init__(
        self,
        *,
        answer: Answer = "reply",
        stall_us: int | None = None,
        orphans: int = 0,
        reap_fails: str | None = None,
        cpuset: str | None = None,
        name: str = "fake",
    ) -> None:
        self.name = name
        self.answer = answer
        self.stall_us = stall_us
        self.orphans = orphans
        self.reap_fails = reap_fails
        self.cpuset = cpuset
        self.boxes: list[FakeSandbox] = []
        self.ops: list[str] = []

    def start(self, spec: SandboxSpec) -> Sandbox:
        box = FakeSandbox(self, self.answer, self.stall_us)
        self.boxes.append(box)
        return box

    def reap(self, older_than_s: float) -> int:
        if self.reap_fails is not None:
            raise ConnectionError(self.reap_fails)
        return self.orphans


class RecordedSandbox(Sandbox):
    """A sandbox handed out by a ``RecordingBackend``: the wrapped one's, its close (or
    discard) recorded."""

    def __init__(self, inner: Sandbox, owner: RecordingBackend) -> None:
        self.inner = inner
        self.owner = owner

    def send(self, frame: bytes, op: str = "") -> None:
        self.inner.send(frame, op)

    def recv(self, timeout_s: float) -> bytes:
        return self.inner.recv(timeout_s)

    def close(self) -> SandboxExit:
        self.owner.closed.append(self.inner)
        return self.inner.close()

    def discard(self) -> None:
        self.owner.closed.append(self.inner)
        self.inner.discard()

    @property
    def environment(self) -> dict[str, str]:
        return self.inner.environment

    def quiet(self, on: bool) -> bool:
        return self.inner.quiet(on)

    def cpu_ns(self) -> int | None:
        return self.inner.cpu_ns()

    def cpu_stall_us(self) -> int | None:
        return self.inner.cpu_stall_us()

    def processes(self) -> int | None:
        return self.inner.processes()


class RecordingBackend(Backend):
    """``inner``, recording: ``starts``, each start asked for as (door, spec), the door being
    "start" or "start_trusted"; ``boxes``, each sandbox ``inner`` handed out (the wrapped
    sandbox itself); ``closed``, the sandbox of each close or discard, once per call;
    ``reaps``, each sweep's age. With ``refuse_after``, a start once that many sandboxes were
    handed out raises RuntimeError (and starts nothing)."""

    def __init__(self, inner: Backend, *, refuse_after: int | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.refuse_after = refuse_after
        self.starts: list[tuple[str, SandboxSpec]] = []
        self.boxes: list[Sandbox] = []
        self.closed: list[Sandbox] = []
        self.reaps: list[float] = []

    @property
    def specs(self) -> list[SandboxSpec]:
        return [spec for _, spec in self.starts]

    def start(self, spec: SandboxSpec) -> Sandbox:
        return self._start("start", spec)

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        return self._start("start_trusted", spec)

    def _start(self, door: str, spec: SandboxSpec) -> Sandbox:
        self.starts.append((door, spec))
        if self.refuse_after is not None and len(self.boxes) >= self.refuse_after:
            raise RuntimeError(f"no sandbox after {self.refuse_after} today")
        box = self.inner.start(spec) if door == "start" else self.inner.start_trusted(spec)
        self.boxes.append(box)
        return RecordedSandbox(box, self)

    def reap(self, older_than_s: float) -> int:
        self.reaps.append(older_than_s)
        return self.inner.reap(older_than_s)

    def close(self) -> None:
        self.inner.close()

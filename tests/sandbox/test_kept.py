"""The trusted keeper (sandbox/host/backends/kept.py): the baseline's sandbox kept between Submits.

A fake sandbox stands in for the runner here (it answers frames like one); the real path is
covered by the docker tests of the worker path (tests/sandbox/test_kept_docker.py)."""

from __future__ import annotations

import time

import pytest

from sandbox.host.backends.base import Sandbox, SandboxDied, SandboxExit, SandboxSpec
from sandbox.host.backends.kept import KeptSandbox, TrustedKeeper
from sandbox.runner import framing


class FakeRunner(Sandbox):
    """Says hello once, answers every request with {"ok": True, "n": <count>}."""

    def __init__(self) -> None:
        self.outbox = [framing.encode_frame({"op": "hello", "device": "cpu"})]
        self.received: list[str] = []
        self.closed = False
        self.fail_next = False
        self.rearmed = 0

    def send(self, frame: bytes, op: str = "") -> None:
        message, _ = framing.decode_frame(frame)
        self.received.append(str(message.get("op")))
        self.outbox.append(framing.encode_frame({"ok": True, "n": len(self.received)}))

    def recv(self, timeout_s: float) -> bytes:
        if self.fail_next:
            raise SandboxDied("gone")
        return self.outbox.pop(0)

    def close(self) -> SandboxExit:
        self.closed = True
        return SandboxExit(0, False, True, "", False)

    def alive(self, check_state: bool = True) -> bool:
        return not self.closed

    def rearm(self, spec: SandboxSpec) -> None:
        self.rearmed += 1

    @property
    def environment(self) -> dict[str, str]:
        return {"backend": "fake", "sandbox": "fresh"}


def _keeper(**kwargs: float) -> tuple[TrustedKeeper, list[FakeRunner]]:
    started: list[FakeRunner] = []

    def start(spec: SandboxSpec) -> Sandbox:
        started.append(FakeRunner())
        return started[-1]

    return TrustedKeeper(start, lambda s: (s.memory_mib, s.cpuset), **kwargs), started


def _judging(box: KeptSandbox) -> dict[str, object]:
    """What the grader does with the baseline's sandbox: hello, load, a request, bye, close."""
    hello, _ = framing.decode_frame(box.recv(1.0))
    assert hello["op"] == "hello"
    box.send(framing.encode_frame({"op": "load", "source": "x = 1"}), "load")
    framing.decode_frame(box.recv(1.0))
    box.send(framing.encode_frame({"op": "time"}), "time")
    reply, _ = framing.decode_frame(box.recv(1.0))
    box.send(framing.encode_frame({"op": "bye"}), "bye")
    bye, _ = framing.decode_frame(box.recv(1.0))
    assert bye == {"ok": True}
    box.close()
    return reply


def test_second_judging_reuses_the_runner_with_its_hello_replayed() -> None:
    keeper, started = _keeper()
    spec = SandboxSpec(memory_mib=1024, cpuset="0")
    first = keeper.take(spec)
    assert not first.reused
    _judging(first)
    assert keeper.idle_count() == 1 and not started[0].closed
    second = keeper.take(spec)
    assert second.reused and second.environment["sandbox"] == "kept"
    reply = _judging(second)
    assert len(started) == 1 and started[0].rearmed == 1
    # the runner never saw a goodbye and served both judgings' requests
    assert started[0].received == ["load", "time", "load", "time"]
    assert reply["n"] == 4
    keeper.close()
    assert started[0].closed


def test_other_limits_get_their_own_sandbox() -> None:
    keeper, started = _keeper()
    _judging(keeper.take(SandboxSpec(memory_mib=1024, cpuset="0")))
    _judging(keeper.take(SandboxSpec(memory_mib=2048, cpuset="0")))
    _judging(keeper.take(SandboxSpec(memory_mib=1024, cpuset="1")))
    assert len(started) == 3
    assert keeper.idle_count() == 3
    keeper.close()
    assert all(box.closed for box in started)


def test_a_fault_destroys_it_instead_of_keeping_it() -> None:
    keeper, started = _keeper()
    spec = SandboxSpec()
    box = keeper.take(spec)
    box.recv(1.0)
    started[0].fail_next = True
    box.send(framing.encode_frame({"op": "load"}), "load")
    with pytest.raises(SandboxDied):
        box.recv(1.0)
    box.close()
    assert started[0].closed and keeper.idle_count() == 0
    assert not keeper.take(spec).reused and len(started) == 2


def test_a_judging_that_ends_without_goodbye_destroys_it() -> None:
    keeper, started = _keeper()
    box = keeper.take(SandboxSpec())
    box.recv(1.0)
    box.send(framing.encode_frame({"op": "load"}), "load")
    box.recv(1.0)
    box.close()  # e.g. the grader raised: no bye, the runner's state is unknown
    assert started[0].closed and keeper.idle_count() == 0


def test_old_or_idle_sandboxes_are_retired() -> None:
    keeper, started = _keeper(max_age_s=0.2, max_idle_s=10.0)
    spec = SandboxSpec()
    _judging(keeper.take(spec))
    time.sleep(0.3)
    again = keeper.take(spec)
    assert not again.reused and started[0].closed and len(started) == 2
    keeper.close()

    keeper, started = _keeper(max_age_s=10.0, max_idle_s=0.1)
    _judging(keeper.take(spec))
    deadline = time.monotonic() + 5
    while not started[0].closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started[0].closed and keeper.idle_count() == 0  # the idle timer removed it


def test_after_close_nothing_is_kept() -> None:
    keeper, started = _keeper()
    box = keeper.take(SandboxSpec())
    keeper.close()
    _judging(box)
    assert started[0].closed and keeper.idle_count() == 0

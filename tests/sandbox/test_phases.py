"""Rules of the judging's timing machinery (no timings asserted): the phases a judging is cut
into, the hooks around its benchmark, CPU sets per worker process, the host-wide timing lock,
and the warm pool's background refill, waits and pause."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.host.backends.base import Sandbox, SandboxSpec
from sandbox.host.backends.cpu_sets import TimingLock, cpuset_for_process, parse_cpu_list
from sandbox.host.phases import TimedBackend, wait_for_closes
from sandbox.runner import framing
from tests.fake_backend import FakeBackend

# ------------------------------------------------------------------ CPU sets and the lock


def test_each_worker_process_gets_a_cpu_set_of_its_own() -> None:
    sets = [cpuset_for_process(i, "auto", [0, 1, 2, 3]) for i in range(4)]
    assert sets == ["0", "1", "2", "3"]
    assert len(set(sets)) == len(sets)


def test_more_processes_than_cpus_share_sets_in_turn() -> None:
    assert [cpuset_for_process(i, "auto", [2, 5]) for i in range(4)] == ["2", "5", "2", "5"]


def test_explicit_sets_are_handed_out_in_turn() -> None:
    assert [cpuset_for_process(i, "0-1;2-3", [0]) for i in range(3)] == ["0-1", "2-3", "0-1"]


@pytest.mark.parametrize("setting", ["", "none", "off"])
def test_pinning_can_be_off(setting: str) -> None:
    assert cpuset_for_process(0, setting, [0, 1]) is None


def test_a_malformed_set_is_refused_at_once() -> None:
    with pytest.raises(ValueError):
        cpuset_for_process(0, "0;a-b", [0, 1])
    assert parse_cpu_list("0-2,5") == [0, 1, 2, 5]


def test_one_timed_phase_per_cpu_set(tmp_path: Any) -> None:
    first, second = TimingLock(str(tmp_path), "0"), TimingLock(str(tmp_path), "0")
    other = TimingLock(str(tmp_path), "1")
    assert first.acquire(1.0) is not None
    assert second.acquire(0.05) is None  # busy: the caller times anyway and says so
    assert other.acquire(0.05) is not None  # another set is independent
    first.release()
    assert second.acquire(1.0) is not None
    second.release()
    other.release()


def test_cpu_pressure_is_read_from_psi(tmp_path: Any) -> None:
    from sandbox.host.backends.cpu_sets import cpu_stall_us

    psi = tmp_path / "cpu"
    psi.write_text(
        "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    )
    assert cpu_stall_us(str(psi)) == 123456
    assert cpu_stall_us(str(tmp_path / "missing")) is None


def test_a_worker_process_pins_itself_and_its_sandboxes(settings: Any, monkeypatch: Any) -> None:
    from judge_site.worker import engine as engine_module

    pinned: list[list[int]] = []
    monkeypatch.setattr(engine_module.os, "sched_setaffinity",
                        lambda pid, cpus: pinned.append(list(cpus)))
    monkeypatch.setattr(engine_module, "available_cpus", lambda: [0, 1])
    settings.JUDGE_SANDBOX_CPUSETS = "auto"
    settings.JUDGE_BACKEND = "docker"
    engine = engine_module.JudgeEngine()
    assert engine.pin(1) == "1"
    assert pinned == [[1]]
    backend = engine.backend(requires=[])
    assert backend.cpuset == "1"  # type: ignore[attr-defined]


# ------------------------------------------------------------------ phases


def request(box: Sandbox, op: str) -> None:
    box.send(framing.encode_frame({"op": op}), op)
    box.recv(1.0)


def test_a_judging_is_cut_into_named_phases_and_hooks_wrap_its_benchmark() -> None:
    events: list[str] = []
    inner = FakeBackend()
    timed = TimedBackend(
        inner,
        before_timing=lambda: events.append("before"),
        after_timing=lambda: events.append("after"),
        close_in_background=False,
    )
    with timed.start(SandboxSpec()) as box:
        box.recv(1.0)  # hello
        request(box, "load")
        request(box, "call")
        request(box, "call")
        sibling = timed.start(SandboxSpec())
        sibling.recv(1.0)
        request(sibling, "load")
        for _ in range(3):
            request(box, "time")
            request(sibling, "time")
        assert events == ["before"]  # once, at the first timed request
        request(sibling, "bye")
        sibling.close()
        assert events == ["before"]  # the student's sandbox is still open
        request(box, "bye")
    assert events == ["before", "after"]
    timed.finish()
    assert events == ["before", "after"]  # idempotent
    phases = timed.clock.as_dict()
    assert {"sandbox_start", "runner_ready", "load", "tests", "benchmark", "timing_wait",
            "shutdown", "sibling_start"} <= set(phases)  # fmt: skip
    assert inner.ops.count("call") == 2 and all(b.closed.is_set() for b in inner.boxes)


def test_a_run_never_enters_the_benchmark_hooks() -> None:
    events: list[str] = []
    timed = TimedBackend(FakeBackend(), before_timing=lambda: events.append("before"))
    with timed.start(SandboxSpec()) as box:
        box.recv(1.0)
        request(box, "load")
        request(box, "call")
        request(box, "bye")
    timed.finish()
    assert events == []
    assert "benchmark" not in timed.clock.as_dict()


def test_a_sandbox_is_removed_in_the_background_only_after_its_goodbye() -> None:
    inner = FakeBackend()
    timed = TimedBackend(inner, close_in_background=True)
    with timed.start(SandboxSpec()) as box:
        box.recv(1.0)
        request(box, "bye")
    with timed.start(SandboxSpec()) as box:  # no goodbye (a fault): removed before returning
        box.recv(1.0)
        request(box, "call")
    assert inner.boxes[1].closed.is_set()
    wait_for_closes(10.0)
    assert inner.boxes[0].closed.is_set()


# ------------------------------------------------------------------ the warm pool


class FakeDockerBox:
    """Stands in for DockerSandbox in the pool: starts in ``START_S``, speaks when told."""

    START_S = 0.2
    made: list[FakeDockerBox] = []

    def __init__(self, backend: Any, spec: SandboxSpec, image: str) -> None:
        time.sleep(self.START_S)
        self.spec = spec
        self.spoken = False
        self.frozen = False
        self.closed = False
        self.rearmed = False
        FakeDockerBox.made.append(self)

    def alive(self, check_state: bool = True) -> bool:
        return not self.closed

    def has_spoken(self) -> bool:
        return self.spoken

    def heard(self) -> bool:
        return self.spoken

    can_pause = True  # False: an engine without a cgroup freezer

    def freeze(self, pause_only: bool = False) -> bool:
        if not self.can_pause and pause_only:
            return False
        self.frozen = True
        return True

    def discard(self) -> None:
        self.closed = True

    def thaw(self) -> None:
        self.frozen = False

    def rearm(self, spec: SandboxSpec) -> None:
        self.spec, self.rearmed = spec, True

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    import sandbox.host.backends.docker as docker_backend
    from sandbox.host.backends import docker_pool
    from sandbox.host.backends.docker_pool import WarmPool

    FakeDockerBox.made = []
    monkeypatch.setattr(docker_backend, "DockerSandbox", FakeDockerBox)
    monkeypatch.setattr(docker_pool, "IMPORT_WAIT_S", 0.0)  # fakes never finish importing

    warm = WarmPool(lambda spec: docker_backend.DockerSandbox(None, spec, "fake"), size=2)
    yield warm
    warm.close()


def wait_until(condition: Any, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(condition())


def test_the_pool_refills_to_its_size_in_the_background(pool: Any) -> None:
    assert pool.take(SandboxSpec(), wait_s=0) is None  # a miss teaches it the limits
    assert wait_until(lambda: pool.ready_count() == 2)
    box = pool.take(SandboxSpec())
    assert box is not None and box.rearmed
    assert wait_until(lambda: pool.ready_count() == 2)  # refilled after the hand-out


def test_a_take_waits_for_a_start_in_flight_instead_of_a_miss(pool: Any) -> None:
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 2)
    pool.take(SandboxSpec())
    pool.take(SandboxSpec())  # the pool is empty now, refills in flight
    box = pool.take(SandboxSpec(), wait_s=10.0)
    assert box is not None and pool.waited_hits >= 1


def test_a_sandbox_of_other_limits_is_not_handed_out(pool: Any) -> None:
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 2)
    assert pool.take(SandboxSpec(cpuset="1"), wait_s=0) is None


def test_quiet_freezes_sandboxes_still_starting_and_pauses_refills(pool: Any) -> None:
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 2)
    idle, starting = [box for _, box in pool._ready]
    idle.spoken = True  # its runner said hello: idle, left alone
    assert pool.quiet(1.0)
    assert (idle.frozen, starting.frozen) == (False, True)
    assert pool.take(SandboxSpec(), wait_s=0) is idle
    time.sleep(4 * FakeDockerBox.START_S)
    assert pool.ready_count() == 1  # paused: no refill while a benchmark is timed
    pool.resume()
    assert not starting.frozen
    assert wait_until(lambda: pool.ready_count() == 2)


def test_without_a_freezer_the_timing_waits_for_an_import_or_drops_it(
    pool: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lower CPU weight is no stop: the importing sandbox would take the CPU whenever the
    timed one waits on the grader. Its import is waited for; one still importing at the
    deadline is removed, and the refill after the timing replaces it."""
    monkeypatch.setattr(FakeDockerBox, "can_pause", False)
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 2)
    idle, starting = [box for _, box in pool._ready]
    idle.spoken = True
    threading.Timer(0.2, lambda: setattr(starting, "spoken", True)).start()
    began = time.monotonic()
    pool.quiet(5.0)
    assert 0.15 < time.monotonic() - began < 4.0  # waited for the import, not the deadline
    assert not starting.closed and not starting.frozen and pool.ready_count() == 2
    pool.resume()

    pool.take(SandboxSpec(), wait_s=0)  # hand one out; its replacement never says hello
    assert wait_until(lambda: pool.ready_count() == 2)
    late = next(box for _, box in pool._ready if not box.spoken)
    pool.quiet(0.3)
    assert late.closed and pool.ready_count() == 1
    pool.resume()
    assert wait_until(lambda: pool.ready_count() == 2)


def test_a_refill_starts_the_next_sandbox_once_the_last_one_has_imported(
    pool: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sandbox.host.backends import docker_pool

    monkeypatch.setattr(docker_pool, "IMPORT_WAIT_S", 30.0)
    monkeypatch.setattr(docker_pool, "IMPORT_OVERLAP_S", 30.0)
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 1)
    time.sleep(4 * FakeDockerBox.START_S)
    assert pool.ready_count() == 1  # the first is still importing: no second beside it
    first = pool._ready[0][1]
    first.spoken = True
    assert wait_until(lambda: pool.ready_count() == 2)
    # ... or once it has imported for IMPORT_OVERLAP_S
    monkeypatch.setattr(docker_pool, "IMPORT_OVERLAP_S", 0.3)
    pool.take(SandboxSpec(), wait_s=0)
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 2, timeout_s=5.0)


def test_a_sandbox_handed_out_mid_import_holds_back_the_next_import(
    pool: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a burst every sandbox is taken while it imports: the refill still starts the next one
    only once the taken one has been heard from (or has imported for IMPORT_OVERLAP_S)."""
    from sandbox.host.backends import docker_pool

    monkeypatch.setattr(docker_pool, "IMPORT_WAIT_S", 30.0)
    monkeypatch.setattr(docker_pool, "IMPORT_OVERLAP_S", 30.0)
    pool.take(SandboxSpec(), wait_s=0)  # learns the limits, starts one
    assert wait_until(lambda: pool.ready_count() == 1)
    taken = pool.take(SandboxSpec(), wait_s=0)
    assert taken is not None and not taken.spoken
    time.sleep(4 * FakeDockerBox.START_S)
    assert pool.ready_count() == 0  # nothing started beside the import of the taken one
    taken.spoken = True  # its judging read the hello
    assert wait_until(lambda: pool.ready_count() == 1)


def test_a_held_pool_starts_no_refill_until_resumed(pool: Any) -> None:
    pool.take(SandboxSpec(), wait_s=0)
    assert wait_until(lambda: pool.ready_count() == 2)
    pool.hold()  # a Submit begins
    assert pool.take(SandboxSpec(), wait_s=0) is not None
    time.sleep(4 * FakeDockerBox.START_S)
    assert pool.ready_count() == 1
    pool.resume()
    assert wait_until(lambda: pool.ready_count() == 2)


# ------------------------------------------------------------------ the real engine


@pytest.mark.docker
def test_a_sandbox_runs_on_its_worker_process_cpu_set_and_can_be_frozen() -> None:
    from tests.conftest import require_docker

    require_docker()
    from sandbox.host.backends.base import get_backend

    backend = get_backend("docker", cpuset="0")
    with backend.start(SandboxSpec(labels={"tensor-judge.test": "cpuset"})) as box:
        box._container.reload()  # type: ignore[attr-defined]
        assert box._container.attrs["HostConfig"]["CpusetCpus"] == "0"  # type: ignore[attr-defined]
        assert box.environment["cpuset"] == "0"
        assert box.freeze()  # type: ignore[attr-defined]  (paused, or at the lowest CPU weight)
        box.thaw()  # type: ignore[attr-defined]
        box.recv(120)  # the runner goes on: its hello arrives


def test_a_judging_through_the_engine_records_its_phases(settings: Any) -> None:
    import socket
    from pathlib import Path

    from judge_site.worker.engine import JudgeEngine
    from sandbox.grader.contracts import Mode, Verdict
    from sandbox.grader.package import load_package

    settings.JUDGE_BACKEND = "local"
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True
    p48 = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"
    engine = JudgeEngine()
    result = engine.judge(
        load_package(p48), (p48 / "solutions" / "AC" / "gather.py").read_text(), Mode.RUN
    )
    assert result.verdict == Verdict.AC, result.message
    phases = result.environment["phases"]
    assert {"setup", "sandbox_start", "runner_ready", "load", "tests", "shutdown"} <= set(phases)
    assert "benchmark" not in phases and "timing_contended" not in result.environment
    assert result.environment["host"] == socket.gethostname()  # the machine that judged
    settings.JUDGE_HOST_NAME = "gpu-box-2"
    again = engine.judge(
        load_package(p48), (p48 / "solutions" / "AC" / "gather.py").read_text(), Mode.RUN
    )
    assert again.environment["host"] == "gpu-box-2"


def test_the_pressure_meter_gives_the_share_of_its_time_some_task_waited(tmp_path: Any) -> None:
    import time

    from sandbox.host.backends.cpu_sets import PressureMeter

    psi = tmp_path / "cpu"
    psi.write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\n")
    meter = PressureMeter(str(psi))
    time.sleep(0.05)
    elapsed_s = time.monotonic() - meter.begun_s
    psi.write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=1020000\n")  # 20 ms waited
    share = meter.share()
    assert share is not None and 0 < share <= 0.02 / elapsed_s
    assert PressureMeter(str(tmp_path / "missing")).share() is None


# ------------------------------------------------------------------ whose CPU pressure


class Stalls:
    """A stand-in for a sandbox's ``cpu_stall_us``."""

    def __init__(self, stall_us: int | None) -> None:
        self.stall_us = stall_us

    def cpu_stall_us(self) -> int | None:
        return self.stall_us


def _psi(path: Any, total_us: int) -> None:
    path.write_text(f"some avg10=0.00 avg60=0.00 avg300=0.00 total={total_us}\nfull total=0\n")


def test_the_timing_pressure_is_the_timed_sandboxes_own_not_the_hosts(tmp_path: Any) -> None:
    from sandbox.host.backends.cpu_sets import PressureMeter

    psi = tmp_path / "cpu"
    _psi(psi, 1_000_000)
    student, baseline = Stalls(5_000), Stalls(70_000)
    meter = PressureMeter(str(psi), boxes=lambda: (student, baseline))
    _psi(psi, 1_000_000 + 60_000_000)  # the host's tasks waited a minute: the judge's relay, say
    student.stall_us, baseline.stall_us = 5_000, 70_000  # the timed sandboxes never waited
    assert meter.share() == 0.0 and meter.source == "sandboxes"
    host = meter.host_share()
    assert host is not None and host > 1.0  # still read, and recorded beside
    student.stall_us = 5_000 + 30_000_000  # now the student's sandbox waited 30 s
    share = meter.share()
    assert share is not None and share > 1.0 and meter.source == "sandboxes"


def test_the_host_pressure_stands_in_where_a_sandboxs_own_is_unknown(tmp_path: Any) -> None:
    from sandbox.host.backends.cpu_sets import PressureMeter

    psi = tmp_path / "cpu"
    _psi(psi, 0)
    known, unknown = Stalls(0), Stalls(None)  # e.g. the local backend, or a v1-only host
    meter = PressureMeter(str(psi), boxes=lambda: (known, unknown))
    _psi(psi, 60_000_000)
    share = meter.share()
    assert share is not None and share > 1.0 and meter.source == "host"
    assert PressureMeter(str(psi), boxes=lambda: ()).share() is not None  # no box: the host's
    assert PressureMeter(str(psi), boxes=lambda: ()).source == "host"


def test_a_sandbox_seen_after_the_timing_began_counts_from_its_first_reading(tmp_path: Any) -> None:
    from sandbox.host.backends.cpu_sets import PressureMeter

    psi = tmp_path / "cpu"
    _psi(psi, 0)
    boxes: list[Stalls] = [Stalls(100)]
    meter = PressureMeter(str(psi), boxes=lambda: boxes)
    late = Stalls(50_000_000)  # 50 s waited while it started (a torch import), before the timing
    boxes.append(late)
    assert meter.share() == 0.0
    late.stall_us = 50_000_000 + 40_000_000
    share = meter.share()
    assert share is not None and share > 1.0


def test_the_engine_calls_a_timing_contended_only_when_its_sandboxes_waited(
    settings: Any, tmp_path: Any
) -> None:
    from judge_site.worker.quiet import QuietCpus

    settings.JUDGE_LOCK_DIR = str(tmp_path)
    psi = tmp_path / "cpu"
    for waited_us, contended in ((0, False), (60_000_000, True)):
        _psi(psi, 0)
        inner = FakeBackend(cpuset="0")  # pinned, with its timing lock
        quiet = QuietCpus(inner)
        quiet.psi_path = str(psi)
        timed = TimedBackend(inner, before_timing=quiet.before, after_timing=quiet.after,
                             close_in_background=False)
        quiet.boxes = lambda timed=timed: list(timed.boxes)
        with timed.start(SandboxSpec()) as box, timed.start(SandboxSpec()) as sibling:
            for fake in inner.boxes:
                fake.stall_us = 1_000
            box.recv(1.0)
            sibling.recv(1.0)
            request(box, "time")
            request(sibling, "time")
            _psi(psi, 90_000_000)  # the host's tasks waited, whatever the sandboxes did
            inner.boxes[0].stall_us = 1_000 + waited_us
            request(box, "bye")
            request(sibling, "bye")
        info = quiet.info
        assert info["timing_pressure_of"] == "sandboxes"  # read before each sandbox closed
        assert float(info["timing_host_cpu_pressure"]) > 1.0
        assert info["timing_contended"].startswith("yes") is contended, info
        assert bool(quiet.waited) is contended  # what makes the benchmark's trust "contended"
        assert bool(quiet.busy) is contended
        if contended:
            assert "the timed sandboxes waited for a CPU" in info["timing_contended"]


def test_a_timing_without_its_cpus_lock_is_contended(settings: Any, tmp_path: Any) -> None:
    """Another timing held the CPUs' lock past the wait: the timing runs beside it, and the
    engine's trust says contended (not only the environment's note)."""
    from judge_site.worker import quiet as quiet_module
    from judge_site.worker.quiet import QuietCpus
    from sandbox.host.backends.cpu_sets import TimingLock

    settings.JUDGE_LOCK_DIR = str(tmp_path)
    holder = TimingLock(str(tmp_path), "0")
    assert holder.acquire(1.0) is not None
    try:
        inner = FakeBackend(cpuset="0")
        quiet = QuietCpus(inner)
        quiet.psi_path = str(tmp_path / "absent")
        old = quiet_module.TIMING_LOCK_WAIT_S
        quiet_module.TIMING_LOCK_WAIT_S = 0.2
        try:
            quiet.before()
            quiet.after()
        finally:
            quiet_module.TIMING_LOCK_WAIT_S = old
    finally:
        holder.release()
    assert quiet.busy == ["no timing lock on CPUs 0"], quiet.busy
    assert quiet.info["timing_contended"].startswith("yes: no timing lock")

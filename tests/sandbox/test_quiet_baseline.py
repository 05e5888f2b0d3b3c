"""The quiet baseline: where the baseline's calls waited for a CPU and the student's sandbox
used CPU meanwhile, the baseline's figure is capped at its times with the student's sandbox
stopped (sandbox/bench/trust.py, ``baseline_waited``, ``ran_beside``, ``baseline_quiet_cap``),
and the student's sandbox is always let go again. Fake series and fake sessions: no timing
asserts."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from sandbox.bench.timing import (
    QUIET_ROUNDS,
    QUIET_WARMUP_ROUNDS,
    Rounds,
    Series,
    slower_block,
)
from sandbox.bench.trust import (
    POLICY,
    Finding,
    baseline_quiet_cap,
    baseline_waited,
    beside_share,
    merged,
    needs_quiet_cap,
    quiet_wait_share,
    ran_beside,
)
from sandbox.grader.contracts import Trust
from sandbox.grader.package import BenchShape
from sandbox.host.backends.base import Backend, SandboxSpec


def series(times_ms: list[float]) -> Series:
    times = [int(t * 1e6) for t in times_ms]
    return Series(times, [t + 100_000 for t in times], [200_000] * len(times))


def test_an_honest_baseline_keeps_its_own_median() -> None:
    base = series([1.0, 1.02, 0.98, 1.01, 1.03])
    quiet = series([0.99, 1.0, 1.01])
    figure, finding = baseline_quiet_cap(base, quiet)
    assert figure == 1.01e6 and finding is None


def test_a_slowed_baseline_is_capped_at_its_quiet_median_and_charged() -> None:
    base = series([2.0, 1.9, 2.1, 2.05, 1.95])  # a spinner beside it on one CPU: 2x
    quiet = series([1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0])
    figure, finding = baseline_quiet_cap(base, quiet)
    assert figure == pytest.approx(1.0e6 * (1 + POLICY.quiet_slack_fraction))
    assert finding is not None and finding.rule == "baseline_quiet_cap"
    assert finding.trust == Trust.CHARGED and finding.charge_ns == 0


def test_a_burst_of_load_is_capped_without_a_charge() -> None:
    base = series([1.0, 1.9, 2.1, 2.05, 1.95])  # its fastest call as fast as the quiet ones
    figure, finding = baseline_quiet_cap(base, series([1.0] * 7))
    assert figure == pytest.approx(1.0e6 * (1 + POLICY.quiet_slack_fraction)) and finding is None


def test_a_mild_drift_is_capped_without_a_charge() -> None:
    base = series([1.15, 1.15, 1.15])
    figure, finding = baseline_quiet_cap(base, series([1.0] * 7))
    assert figure == pytest.approx(1.0e6 * (1 + POLICY.quiet_slack_fraction)) and finding is None


def test_no_quiet_series_no_cap() -> None:
    base = series([2.0, 2.0, 2.0])
    assert baseline_quiet_cap(base, None) == (2.0e6, None)
    assert baseline_quiet_cap(base, Series()) == (2.0e6, None)


def test_findings_merge_to_the_worse_trust() -> None:
    charged = Finding("gap_excess", Trust.CHARGED, "gap", 5)
    cap = Finding("baseline_quiet_cap", Trust.CHARGED, "cap")
    both = merged(charged, cap)
    assert both.rule == "gap_excess+baseline_quiet_cap" and both.charge_ns == 5
    assert both.trust == Trust.CHARGED and both.message == "gap; cap"
    rejected = merged(Finding("gap_excess", Trust.REJECTED, "no"), cap)
    assert rejected.trust == Trust.REJECTED
    assert merged(Finding("", Trust.VERIFIED, ""), cap) == cap
    assert merged(charged, None) == charged


class FakeBox:
    def __init__(self, can_quiet: bool = True) -> None:
        self.calls: list[bool] = []
        self.can_quiet = can_quiet

    def quiet(self, on: bool) -> bool:
        self.calls.append(on)
        return self.can_quiet

    @property
    def stopped(self) -> bool:
        return bool(self.calls) and self.calls[-1] and self.can_quiet

    def cpu_ns(self) -> int | None:
        return None  # not known, as for a backend without cgroup files

    def cpu_stall_us(self) -> int | None:
        return None  # not known either: the timing's pressure is the host's


class CountedBox(FakeBox):
    """A student's box whose cgroup counts ``per_read_ns`` more CPU time at every read: 0 is
    code blocked on its channel, more is code running beside the baseline's calls."""

    def __init__(self, per_read_ns: int) -> None:
        super().__init__()
        self.per_read_ns, self.used_ns, self.reads = per_read_ns, 7_000_000, 0

    def cpu_ns(self) -> int:
        self.reads += 1
        self.used_ns += self.per_read_ns
        return self.used_ns


class FakeSession:
    def __init__(
        self,
        box: FakeBox | None = None,
        fail_after: int = -1,
        waited_ns: int | None = None,
        beside: FakeBox | None = None,
        stopped: tuple[int, int] = (1_000_000, 0),
    ) -> None:
        self.box = box or FakeBox()
        self.last_round_trip_ns = 0
        self.requests = 0
        self.fail_after = fail_after
        self.waited_ns = waited_ns  # what its time replies say (None: not said)
        # (time_ns, waited_ns) its replies say while ``beside`` (the student's box) is stopped
        self.beside, self.stopped = beside, stopped

    def request(self, message: dict[str, Any], timeout_s: float, what: str) -> tuple[Any, bytes]:
        self.requests += 1
        if self.requests == self.fail_after:
            raise RuntimeError("the baseline's sandbox failed")
        self.last_round_trip_ns = 2_000_000
        time_ns, waited_ns = 1_000_000, self.waited_ns
        if self.beside is not None and self.beside.stopped:
            time_ns, waited_ns = self.stopped
        reply: dict[str, Any] = {"time_ns": time_ns, "digest": "d"}
        if waited_ns is not None:
            reply["waited_ns"] = waited_ns
        return reply, b""


SHAPE = BenchShape(name="s", fn="f", args=[])


def quiet_baseline(sub: FakeSession, base: FakeSession) -> Series | None:
    """Rounds.quiet_baseline of a shape whose outputs are never checked."""
    rounds = Rounds(sub, base, SHAPE, "g", "cpu", 1.0, random.Random(1), lambda timed: None)  # type: ignore[arg-type]
    return rounds.quiet_baseline()


def test_the_quiet_baseline_stops_the_student_and_always_lets_it_go() -> None:
    sub, base = FakeSession(), FakeSession()
    quiet = quiet_baseline(sub, base)
    assert quiet is not None and len(quiet.times_ns) == QUIET_ROUNDS
    assert base.requests == 2 * (QUIET_WARMUP_ROUNDS + QUIET_ROUNDS)  # prepare + time
    assert sub.box.calls == [True, False] and sub.requests == 0

    failing = FakeSession()
    with pytest.raises(RuntimeError):
        quiet_baseline(failing, FakeSession(fail_after=3))
    assert failing.box.calls == [True, False]


def test_no_quiet_baseline_where_the_backend_cannot_stop_a_sandbox() -> None:
    sub, base = FakeSession(FakeBox(can_quiet=False)), FakeSession()
    assert quiet_baseline(sub, base) is None
    assert base.requests == 0


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _wait_state(pid: int, stopped: bool) -> str:
    """The process's state once it is (``stopped``) or is not stopped ("T"), or after 10 s."""
    deadline = time.monotonic() + 10
    while ((state := _state(pid)) == "T") != stopped and time.monotonic() < deadline:
        time.sleep(0.05)
    return state


def test_the_local_backend_stops_and_continues_the_runner(local_backend: Backend) -> None:
    with local_backend.start(SandboxSpec(wall_time_s=60)) as box:
        pid = box.proc.pid  # type: ignore[attr-defined]
        assert box.quiet(True)
        assert _wait_state(pid, stopped=True) == "T"
        assert box.quiet(False)
        assert _wait_state(pid, stopped=False) != "T"
    assert not box.quiet(True)  # gone: nothing to stop


def test_the_cap_compares_with_the_slower_quiet_block() -> None:
    fast, slow = series([1.0, 1.0, 1.1]), series([1.3, 1.2, 1.3])
    assert slower_block([fast, slow]) is slow and slower_block([slow, fast]) is slow
    assert slower_block([None, fast]) is fast and slower_block([Series(), fast]) is fast
    assert slower_block([None, None]) is None
    # Rounds at 1.25 ms, a block at 1.0 and one at 1.3: nothing capped (the old single block
    # after the rounds, taken in the faster moment, capped it at 1.05).
    base = series([1.25] * 5)
    figure, finding = baseline_quiet_cap(base, slower_block([slow, fast]))
    assert figure == pytest.approx(1.25e6) and finding is None
    assert baseline_quiet_cap(base, fast)[0] == pytest.approx(1.0e6 * 1.05)


def waited(times_ms: list[float], waited_ms: list[float]) -> Series:
    base = series(times_ms)
    base.waited_ns = [int(w * 1e6) for w in waited_ms]
    return base


def test_the_cap_applies_only_where_the_baseline_waited_for_a_cpu() -> None:
    assert not baseline_waited(waited([1.0] * 4, [0.0, 0.001, 0.0, 0.002]))  # alone on its CPU
    assert baseline_waited(waited([2.0] * 4, [1.0, 0.9, 1.1, 1.0]))  # a spinner beside it
    # A wait in a quarter of the calls, of a fifth of their time each: 5 % in all.
    assert baseline_waited(waited([1.0] * 4, [0.2, 0.0, 0.0, 0.0]))
    threshold = POLICY.quiet_wait_fraction
    assert not baseline_waited(waited([1.0] * 10, [threshold * 0.9] * 10))
    assert baseline_waited(waited([1.0] * 10, [threshold * 1.1] * 10))
    # Not known (a runner that cannot read its run delay), or nothing timed: the cap applies.
    assert baseline_waited(waited([1.0] * 3, [0.0, -1e-6, 0.0]))
    assert baseline_waited(Series())


def test_the_wait_with_the_student_stopped_is_summed_over_the_blocks_taken() -> None:
    # 0.29 and 0.01 of 1 ms in five calls each: 0.15 in all; a block not taken does not count.
    blocks = [waited([1.0] * 5, [0.29] * 5), None, waited([1.0] * 5, [0.01] * 5)]
    assert quiet_wait_share(blocks) == pytest.approx(0.15)
    assert quiet_wait_share([None, None]) is None and quiet_wait_share([]) is None
    assert quiet_wait_share([waited([1.0] * 2, [0.3, -1e-6])]) is None  # a wait not known


def _judge_one_shape(
    base_waited_ns: int,
    monkeypatch: pytest.MonkeyPatch,
    stopped: tuple[int, int] | None = None,
    box: FakeBox | None = None,
) -> tuple[FakeSession, Any]:
    import types

    import sandbox.bench as bench

    class Unchecked:
        def __init__(self, *args: object) -> None:
            pass

        def check(self, *args: object) -> None:
            return None

    monkeypatch.setattr(bench, "Verifier", Unchecked)
    package = types.SimpleNamespace(
        benchmark=types.SimpleNamespace(target_rel_error=0.05),
        limits=types.SimpleNamespace(time_s=1.0),
    )
    sub = FakeSession(box, waited_ns=0)
    base = FakeSession(
        waited_ns=base_waited_ns, beside=sub.box, stopped=stopped or (1_000_000, base_waited_ns)
    )
    result, wrong = bench.bench_shape(
        sub, base, package, SHAPE, "g", "cpu", 2.0, random.Random(1), []  # type: ignore[arg-type]
    )
    assert wrong is None and result is not None
    return sub, result


def test_a_baseline_that_never_waited_is_not_timed_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    sub, result = _judge_one_shape(0, monkeypatch)
    assert sub.box.calls == []  # the student's sandbox was never stopped
    assert result.note == "" and result.baseline_ms == pytest.approx(1.0)
    assert result.trust == Trust.VERIFIED


def test_a_baseline_that_waited_as_much_quiet_is_still_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Half of each call spent waiting with the student's code stopped too (the host's load):
    # both quiet blocks are taken, the note says both waits, and the faster quiet time (0.5 ms)
    # still bounds the figure: host waits scatter too much to tell a spinner from them.
    sub, result = _judge_one_shape(500_000, monkeypatch, stopped=(500_000, 250_000))
    assert sub.box.calls == [True, False, True, False]
    assert result.baseline_ms == pytest.approx(0.5 * (1 + POLICY.quiet_slack_fraction))
    assert "the baseline waited 50.0 % of its time for a CPU (50.0 % with" in result.note


def test_a_baseline_that_waited_beside_the_student_only_is_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What a spinner on its CPU causes: half of each call waiting, none with the student stopped.
    sub, result = _judge_one_shape(500_000, monkeypatch, stopped=(500_000, 0))
    assert sub.box.calls == [True, False, True, False]
    assert result.baseline_ms == pytest.approx(0.5 * (1 + POLICY.quiet_slack_fraction))
    assert result.trust == Trust.CHARGED and result.rule == "baseline_quiet_cap"  # 2x slower
    assert "waited 50.0 % of its time for a CPU (0.0 % with your code stopped)" in result.note
    assert "its time with your code stopped bounds it" in result.note


def beside(round_trips_ms: list[float], beside_ms: list[float]) -> Series:
    base = series([rt - 0.1 for rt in round_trips_ms])
    base.beside_ns = [int(b * 1e6) for b in beside_ms]
    return base


def test_the_student_ran_beside_the_baseline_when_it_used_cpu_during_its_calls() -> None:
    # Blocked on its channel: none. A spinner beside a call of 2 ms takes about half of it.
    assert not ran_beside(beside([2.0] * 4, [0.0] * 4))
    assert beside_share(beside([2.0] * 4, [0.0] * 4)) == 0.0
    assert ran_beside(beside([2.0] * 4, [1.0, 0.9, 1.1, 1.0]))
    threshold = POLICY.beside_cpu_fraction
    assert not ran_beside(beside([1.0] * 10, [threshold * 0.9] * 10))
    assert ran_beside(beside([1.0] * 10, [threshold * 1.1] * 10))
    # Not known (no cgroup to read), or nothing timed: as if it ran.
    assert ran_beside(beside([1.0] * 3, [0.0, -1e-6, 0.0])) and ran_beside(Series())
    assert beside_share(Series()) is None


def test_the_cap_needs_both_a_wait_and_the_student_running() -> None:
    idle, spinning = beside([2.0] * 4, [0.0] * 4), beside([2.0] * 4, [1.0] * 4)
    idle.waited_ns = spinning.waited_ns = [1_000_000] * 4
    assert not needs_quiet_cap(idle)  # waited, but for the host: the student used no CPU
    assert needs_quiet_cap(spinning)
    quiet_spinner = beside([2.0] * 4, [1.0] * 4)
    quiet_spinner.waited_ns = [0] * 4  # it ran on another CPU of the set: the baseline never waited
    assert not needs_quiet_cap(quiet_spinner)


def test_a_baseline_that_waited_for_the_host_alone_is_not_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Half of each baseline call spent waiting, while the student's sandbox used no CPU at all:
    # the wait was the host's; no quiet block, no cap, the baseline's own median.
    box = CountedBox(per_read_ns=0)
    sub, result = _judge_one_shape(500_000, monkeypatch, stopped=(500_000, 0), box=box)
    assert sub.box.calls == [] and box.reads > 0
    assert result.baseline_ms == pytest.approx(1.0) and result.note == ""
    assert result.trust == Trust.VERIFIED


def test_a_baseline_that_waited_while_the_student_used_cpu_is_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The same wait, with the student's cgroup counting 0.5 ms of CPU during each baseline call.
    box = CountedBox(per_read_ns=500_000)
    sub, result = _judge_one_shape(500_000, monkeypatch, stopped=(500_000, 0), box=box)
    assert sub.box.calls == [True, False, True, False]
    assert result.baseline_ms == pytest.approx(0.5 * (1 + POLICY.quiet_slack_fraction))
    assert result.trust == Trust.CHARGED and result.rule == "baseline_quiet_cap"

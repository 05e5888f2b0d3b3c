"""Short kernels timed right (issue 38, item 2), on CPU with the host clock: the count of calls
per sample is calibrated so a sample lasts >= ~1 ms, both sides of a speedup share one count,
the flush runs outside the clock, and a fixed cost around each sample stops pulling a short
kernel's ratio toward 1. A fake clock makes the figures exact; one real-clock check is loose."""

from __future__ import annotations

import time

from sandbox.bench import sampling
from sandbox.bench.sampling import calls_for, calls_per_sample, shared_count, time_sample


class FakeClock:
    """A clock that calls advance by their cost; reads cost ``read_ns`` (the runner's overhead)."""

    def __init__(self, read_ns: int = 0) -> None:
        self.now, self.read_ns = 0, read_ns

    def __call__(self) -> int:
        self.now += self.read_ns
        return self.now

    def kernel(self, ns: int):  # noqa: ANN201
        def call() -> None:
            self.now += ns
        return call


def test_the_count_makes_a_sample_last_a_millisecond() -> None:
    assert calls_for(25_000) == 40  # a 25 us kernel: 40 calls a sample
    assert calls_for(2_000_000) == 1  # a long kernel is timed one call at a time
    assert calls_for(0) == sampling.MAX_CALLS and calls_for(float("nan")) == sampling.MAX_CALLS
    assert calls_for(1) == sampling.MAX_CALLS  # bounded
    clock = FakeClock()
    assert calls_per_sample(clock.kernel(25_000), clock) == 40
    assert 40 * 25_000 >= sampling.TARGET_SAMPLE_NS


def test_both_sides_share_the_faster_sides_count() -> None:
    clock = FakeClock()
    fast, slow = clock.kernel(25_000), clock.kernel(100_000)
    assert shared_count(fast, slow, clock) == shared_count(slow, fast, clock) == 40


def test_the_flush_is_outside_the_clock_and_the_overhead_is_amortised() -> None:
    clock = FakeClock(read_ns=10_000)  # 10 us in every sample, as the runner's events add
    flushed: list[int] = []

    def flush() -> None:
        flushed.append(clock.now)
        clock.now += 500_000  # a flush of 0.5 ms: never in the sample

    one = time_sample(clock.kernel(25_000), 1, clock, flush=flush)
    assert one == 35_000  # one call: 40 % of it is the clock's cost
    count = shared_count(clock.kernel(25_000), clock.kernel(50_000), FakeClock())
    sub = time_sample(clock.kernel(25_000), count, clock, flush=flush)
    base = time_sample(clock.kernel(50_000), count, clock, flush=flush)
    assert len(flushed) == 3  # once a sample, never inside it
    assert abs(sub / 25_000 - 1) <= 0.05  # the overhead is at most 5 % of a 25 us kernel
    assert abs(base / sub - 2.0) < 0.03  # the ratio is the kernels', not pulled toward 1
    one_each = time_sample(clock.kernel(50_000), 1, clock) / time_sample(clock.kernel(25_000), 1, clock)
    assert abs(one_each - 60 / 35) < 1e-9  # one call a sample: 1.71, pulled toward 1 from 2


def test_on_the_host_clock_a_sample_of_a_short_call_lasts_about_a_millisecond() -> None:
    def short() -> None:
        sum(range(200))

    count = calls_per_sample(short)
    start = time.perf_counter_ns()
    time_sample(short, count)
    assert count > 1 and time.perf_counter_ns() - start >= 0.3 * sampling.TARGET_SAMPLE_NS

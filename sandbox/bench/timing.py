"""The timing itself: rounds in which the student's sandbox and the baseline's own sandbox
each time one call, in a random order, on fresh inputs, until both medians are precise.

Two sandboxes, one grader: the baseline is the "submission" of a sandbox of its own (same
image, same limits, same CPU set), loaded with the trusted kernels source, so no student code
can touch it. The grader drives both in alternation; only one is ever timing.

The two share a CPU set, so code the student left running between its own timed calls (a
thread, a child process) would slow the baseline's. Halfway through the minimum rounds of a
shape and again after the last, ``Rounds.quiet_baseline`` times a few baseline calls with the
student's sandbox stopped (``Sandbox.quiet``: two backend calls per block), the yardstick of
the rule ``baseline_quiet_cap`` (sandbox/bench/trust.py): the slower of the two blocks
(``slower_block``). One block after the rounds was not enough: the machine's speed drifts
(on this VM, problem 48's baseline ran at 2.5-2.8 ms for a while, then at 1.9-2.2 ms), and a
block taken in a faster moment than the rounds capped an honest baseline (by 0.41-0.997). In
alternating runs of 14-16 correct Submits of 48 on an idle machine, one block after the
rounds capped 3 of 28, 10 of 32 and 8 of 32 shapes (speedup CV 1.9, 4.1, 9.4 %); two blocks,
2 of 28, 0 of 32 and 3 of 32 (CV 2.0, 1.7, 3.7 %), for about 0.15 s more. Each block keeps the
rounds' cadence, idle between calls as long as the submission's calls took: back to back, a
call of ~40 us measured 1.3-1.5x faster than in the rounds (CPU idle between calls); at the
cadence, within noise.
"""

from __future__ import annotations

import bisect
import math
import random
import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sandbox.bench.stats import paired_ratios, relative_error
from sandbox.grader.contracts import TestResult
from sandbox.grader.package import BenchShape
from sandbox.runner import protocol

if TYPE_CHECKING:
    from sandbox.grader.session import Session

WARMUP_ROUNDS = 3
# At least 20 measured rounds: the precision of a median estimated from the quartiles of 10
# ratios is itself a guess, and stopped there by luck, the same correct file of 48 ranged over
# 0.90-1.07 from one judging to the next.
MIN_ROUNDS = 20
MAX_ROUNDS = 5_000
# Then, past the package's target_rel_error, rounds go on until the speedup's relative error
# is under FINE_REL_ERROR or the shape has run FINE_BUDGET_S in all (the package's budget
# bounds both).
FINE_REL_ERROR = 0.01
FINE_BUDGET_S = 0.6
# ... or this long where the host's CPUs were contended during the shape's rounds so far (PSI
# above CONTENDED_CPU_PRESSURE, sandbox/host/backends/cpu_sets.py; where the kernel has no PSI,
# where the baseline's calls waited for a CPU): each round's ratio scatters more. Under four
# clients' Submits on a 2-core host, 0.6 s gave 20-33 rounds a shape and a speedup CV of 4.2 %;
# 1.5 s, 2.3-2.5 %. The baseline's waits alone were no guide: alone on an idle host some
# shapes waited over 2 % and took the longer budget (Submit p50 2.2 s instead of 1.5 s).
FINE_BUDGET_CONTENDED_S = 1.5
QUIET_WARMUP_ROUNDS = 2  # baseline calls with the student's sandbox stopped: not measured
QUIET_ROUNDS = 10  # then measured, per quiet block (two blocks per shape)
QUIET_MAX_IDLE_S = 0.02  # the longest idle between two of its calls (bounds its duration)
VERIFY_PROBABILITY = 0.1  # besides every call at or below the running median
SUBMISSION, BASELINE = "submission", "baseline"


@dataclass
class Series:
    times_ns: list[int] = field(default_factory=list)  # as reported by the sandbox
    round_trips_ns: list[int] = field(default_factory=list)  # the grader's clock
    prepares_ns: list[int] = field(default_factory=list)  # round trips of the input builds
    # as reported: how long the sandbox's threads waited for a CPU during each call (-1: not
    # known); believed of the baseline's sandbox only
    waited_ns: list[int] = field(default_factory=list)
    # the baseline's series only: the CPU time the student's sandbox used during each call's
    # round trip, as its cgroup counts it (-1: not known)
    beside_ns: list[int] = field(default_factory=list)

    @property
    def gaps_ns(self) -> list[int]:
        return [rt - t for rt, t in zip(self.round_trips_ns, self.times_ns, strict=True)]

    def add(self, timed: Timed) -> None:
        self.times_ns.append(timed.reported_ns)
        self.round_trips_ns.append(timed.round_trip_ns)
        self.prepares_ns.append(timed.prepare_ns)
        self.waited_ns.append(timed.waited_ns)
        self.beside_ns.append(timed.beside_ns)


@dataclass
class Timed:
    """One timed call: what the grader sent and what came back."""

    seed: int
    late_seed: int
    key: str
    reported_ns: int
    round_trip_ns: int
    digest: str
    prepare_ns: int = 0  # round trip of the input build
    waited_ns: int = -1  # reported: its threads' wait for a CPU during the call (-1: unknown)
    beside_ns: int = -1  # the CPU time ``watch`` counted during the call's round trip


def time_one(
    session: Session,
    shape: BenchShape,
    fn: str,
    rng: random.Random,
    device: str,
    timeout_s: float,
    watch: Callable[[], int | None] | None = None,
) -> Timed:
    """Time one call of ``fn``. Inputs are built in a separate request first, so the round trip
    of the time request holds little besides the call; that request draws one small argument
    from ``late_seed`` and returns the output's digest under ``key``. ``watch``: a CPU-time
    counter (another sandbox's ``cpu_ns``) read right before and after the time request."""
    what = f"the benchmark ({shape.name})"
    seed, late_seed, key = rng.getrandbits(62), rng.getrandbits(62), secrets.token_hex(16)
    prepare = protocol.prepare("timed", shape.args, seed, device)
    session.request(prepare, timeout_s, what)
    prepare_ns = session.last_round_trip_ns
    message = protocol.time("timed", fn, late_seed, key)
    before = watch() if watch is not None else None
    reply, _ = session.request(message, timeout_s, what)
    beside = -1
    if watch is not None and before is not None:
        after = watch()
        if after is not None and after >= before:
            beside = after - before
    reported = reply.get("time_ns")
    if type(reported) is not int:
        reported = -1
    digest = reply.get("digest")
    waited = reply.get("waited_ns")
    return Timed(
        seed,
        late_seed,
        key,
        reported,
        session.last_round_trip_ns,
        digest if isinstance(digest, str) else "",
        prepare_ns,
        waited if type(waited) is int and waited >= 0 else -1,
        beside,
    )


def slower_block(blocks: list[Series | None]) -> Series | None:
    """Of the quiet blocks taken (None: the backend could not stop the student's sandbox),
    the one with the larger median: the student's sandbox was stopped during each, so neither
    can be slowed by it, and the slower one is the machine's state closer to a slow moment of
    the rounds. None when no block was taken."""
    taken = [block for block in blocks if block is not None and block.times_ns]
    return max(taken, key=lambda block: statistics.median(block.times_ns)) if taken else None


# check(timed) -> a WA test result when the submission's timed output was wrong, else None.
Check = Callable[[Timed], "TestResult | None"]


class Rounds:
    """The interleaved rounds of one benchmark shape: the submission's series and the
    baseline's grow together; ``run`` may be called again to add rounds (a confirmation)."""

    def __init__(
        self,
        sub_session: Session,
        base_session: Session,
        shape: BenchShape,
        baseline_fn: str,
        device: str,
        timeout_s: float,
        rng: random.Random,
        check: Check,
    ) -> None:
        self.sessions = {SUBMISSION: sub_session, BASELINE: base_session}
        self.fns = {SUBMISSION: shape.fn, BASELINE: baseline_fn}
        self.shape, self.device, self.timeout_s, self.rng = shape, device, timeout_s, rng
        self.check = check
        self.sub, self.base = Series(), Series()
        self.rounds = 0
        self.verify_round = rng.randrange(WARMUP_ROUNDS, WARMUP_ROUNDS + MIN_ROUNDS)  # 1 at least
        self.sorted_sub: list[int] = []  # the submission's measured times, kept sorted
        # the student's sandbox's CPU time, read around the baseline's calls
        self.watch: Callable[[], int | None] = sub_session.box.cpu_ns

    def quiet_baseline(self, idle_s: float = 0.0) -> Series | None:
        """The baseline's times with the student's sandbox stopped (``QUIET_ROUNDS`` after
        ``QUIET_WARMUP_ROUNDS``, ``idle_s`` apart), or None when its backend cannot stop it.
        The student's sandbox is always let go again, whatever happens."""
        box = self.sessions[SUBMISSION].box
        if not box.quiet(True):
            return None
        series = Series()
        try:
            for index in range(QUIET_WARMUP_ROUNDS + QUIET_ROUNDS):
                timed = time_one(self.sessions[BASELINE], self.shape, self.fns[BASELINE],
                                 self.rng, self.device, self.timeout_s)
                if index >= QUIET_WARMUP_ROUNDS:
                    series.add(timed)
                if idle_s > 0:
                    time.sleep(idle_s)
        finally:
            box.quiet(False)
        return series

    def precision(self) -> float:
        """The relative standard error of the speedup's estimate, the median of the rounds'
        ratios (baseline / submission)."""
        ratios = paired_ratios(self.base.times_ns, self.sub.times_ns)
        return relative_error(ratios) if len(ratios) == len(self.sub.times_ns) else math.inf

    def run(self, min_measured: int, budget_s: float, target_rel_error: float) -> TestResult | None:
        """Rounds until ``min_measured`` more are measured and the target precision (or the
        budget) is reached; a WA test result if a checked output was wrong."""
        deadline = time.monotonic() + budget_s
        stop_at = max(self.rounds, WARMUP_ROUNDS) + min_measured
        while self.rounds < MAX_ROUNDS:
            order = [SUBMISSION, BASELINE]
            self.rng.shuffle(order)
            verify = self.rounds == self.verify_round or self.rng.random() < VERIFY_PROBABILITY
            measured = self.rounds >= WARMUP_ROUNDS
            for which in order:
                timed = time_one(
                    self.sessions[which],
                    self.shape,
                    self.fns[which],
                    self.rng,
                    self.device,
                    self.timeout_s,
                    # around the baseline's calls: what the student's sandbox ran meanwhile
                    self.watch if which == BASELINE else None,
                )
                if which == SUBMISSION:
                    # A call at or below the median so far is checked. An unchecked call is
                    # then slower than the median of its time, so by induction no median falls
                    # below the times of checked (correct) calls, whatever wrong outputs come
                    # back fast.
                    sorted_sub = self.sorted_sub
                    low = measured and (
                        not sorted_sub or timed.reported_ns <= sorted_sub[len(sorted_sub) // 2]
                    )
                    if verify or low:
                        wrong = self.check(timed)
                        if wrong is not None:
                            return wrong
                    if measured:
                        bisect.insort(sorted_sub, timed.reported_ns)
                        self.sub.add(timed)
                elif measured:
                    self.base.add(timed)
            self.rounds += 1
            if self.rounds >= stop_at and (
                time.monotonic() > deadline or self.precision() <= target_rel_error
            ):
                return None
        return None

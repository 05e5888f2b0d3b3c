"""The benchmark: the student's function against the baseline kernel, in the same sandbox.

Per shape: warm-up, then rounds in which the baseline and the submission are each timed once,
in a random order, on fresh inputs built from a fresh seed, until the median of both has a
relative standard error under ``target_rel_error`` or the time budget is spent. The runner
reports each time; the grader does not trust it:

* it fetches the submission's last timed output and compares it with the reference run here
  on the same inputs, for every timed call that reported a time at or below the median of
  the submission's times so far (so no wrong output can pull the median down: an output
  kept from another call and returned at once is caught), and at rounds it picks at random
  (the sandbox cannot predict them): a mismatch makes the judging WA;
* inputs are built by a separate request, so the round trip of a time request holds the call
  plus a fixed amount of channel work; every reported time must fit inside it and be above a
  physical floor, and the part of the round trip outside the reported time must be the same
  for the submission, the baseline and the baseline timed before the student's code was
  loaded (compared at their minimum, since noise only adds): a patched or rewound clock, or
  work hidden in the time request around the clock, shows up there;
* one small argument of each timed call is drawn only by the time request itself (a seed
  sent with it), so nothing can be computed ahead while the inputs are prepared (work that
  does not depend on it would lengthen the input build, whose round trip is bounded by the
  clean baseline's and the baseline's like the gaps); and the
  time reply carries a digest of the output keyed by a secret sent with that request, which
  the fetched output must match: an output finished by a thread after the call returned
  does not;
* the baseline is also timed before the student's code is loaded; if it runs much slower
  once that code is in (a sabotaged baseline), the times are not believed either, and the
  baseline figure is never above the clean one.

A benchmark that fails a check is not verified: its speedup then compares the clean baseline
with the grader's own round trip of the submission (which errs on the slow side) and says so.
"""

from __future__ import annotations

import bisect
import math
import random
import secrets
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sandbox import inputs, wire
from sandbox.compare import compare
from sandbox.contracts import BenchmarkResult, TestResult, Verdict, WrongKind
from sandbox.problem import BenchShape, Call, Case, ProblemPackage

if TYPE_CHECKING:
    from sandbox.session import Session

FLOOR_NS = 1_000  # no call through the runner is faster than a microsecond
WARMUP_ROUNDS = 3
MIN_ROUNDS = 10
MAX_ROUNDS = 5_000
CLEAN_ROUNDS = 7  # baseline timings taken before the student's code is loaded
VERIFY_PROBABILITY = 0.1
GAP_FLOOR_NS = 50_000  # extra time outside the clock always tolerated (channel jitter)
GAP_REL = 0.25  # plus this fraction of the baseline's own minimum gap
# Against the baseline timed before the student's code was loaded, minutes earlier, the
# machine may have drifted (seen here: the same gap 0.65 ms then, 0.92-1.09 ms later).
CLEAN_FLOOR_NS = 200_000
CLEAN_REL = 0.5
BASELINE_SLOWDOWN = 1.5  # the baseline may not run this much slower once student code is in
# Time outside the clock (a larger gap, slower input building) beyond the baseline's is
# charged to the submission up to this fraction of its own time: honest code that runs long
# causes some on a busy machine (preempted at the end of its time slice, the allocator left
# in another state). Beyond it the timing is rejected: hidden work causes all of it.
CHARGE_MAX = 0.5
CONFIRM_ROUNDS = 20  # more rounds before a timing is rejected (noise clears, hidden work stays)
CONFIRM_BUDGET_S = 5.0


@dataclass
class Series:
    times_ns: list[int] = field(default_factory=list)
    round_trips_ns: list[int] = field(default_factory=list)
    prepares_ns: list[int] = field(default_factory=list)  # round trips of the input builds

    @property
    def gaps_ns(self) -> list[int]:
        return [rt - t for rt, t in zip(self.round_trips_ns, self.times_ns, strict=True)]


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        v = values[0] if values else 0.0
        return v, v, v
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def relative_error(values: list[float]) -> float:
    """Relative standard error of the median, estimated from the IQR (normal approximation)."""
    if len(values) < 3:
        return math.inf
    q1, median, q3 = quartiles(values)
    if median <= 0:
        return math.inf
    sigma = (q3 - q1) / 1.349
    return 1.2533 * sigma / math.sqrt(len(values)) / median


def spread(values: list[float]) -> float:
    """Relative half-width of the middle 50%."""
    q1, median, q3 = quartiles(values)
    return (q3 - q1) / 2 / median if median > 0 else 0.0


def _excess(own: list[int], loaded: list[int], clean: list[int] | None) -> int:
    """How much larger, at best, ``own`` (the submission's) is than the baseline's ``loaded``
    values (timed interleaved with it: beyond GAP_FLOOR_NS + GAP_REL) and than the ``clean``
    ones (timed before the student's code was loaded: beyond CLEAN_FLOOR_NS + CLEAN_REL,
    since a machine drifts between the two phases); 0 within both. Minima are compared:
    noise only adds."""
    if not own or not loaded:
        return 0
    lowest = min(own)
    excess = 0
    near = min(loaded)
    if lowest - near > GAP_FLOOR_NS + GAP_REL * near:
        excess = lowest - near
    if clean:
        before = min(clean)
        if lowest - before > CLEAN_FLOOR_NS + CLEAN_REL * before:
            excess = max(excess, lowest - before)
    return excess


def gap_excess_ns(sub: Series, base: Series, clean_gaps_ns: list[int] | None = None) -> int:
    """How much longer, at best, the submission's timed calls took outside its clock than the
    baseline's, or 0 within the jitter always tolerated. Hidden work in the time request
    shows up here, on both sides alike when compared with the clean baseline's gaps."""
    return _excess(sub.gaps_ns, base.gaps_ns, clean_gaps_ns)


def prepare_excess_ns(
    sub: Series, base: Series, clean_prepares_ns: list[int] | None = None
) -> int:
    """How much longer, at best, building the inputs of the submission's timed calls took than
    the baseline's, or 0 within the jitter always tolerated. Work done ahead (while the inputs
    are built) shows up here in full; honest code only as a small systematic offset."""
    return _excess(sub.prepares_ns, base.prepares_ns, clean_prepares_ns)


def check_times(
    sub: Series,
    base: Series,
    clean_baseline_ns: list[int],
    clean_gaps_ns: list[int] | None = None,
    clean_prepares_ns: list[int] | None = None,
) -> str:
    """'' when the reported times agree with the grader's clock, else why they don't.

    The time request's round trip is the call plus the same channel work for both sides, so
    the part outside the reported time (the gap) must be the same for submission and
    baseline. Noise on a busy machine only ever adds time, so the minimum gaps are compared:
    they are the channel's own cost, and hidden work (a rewound or patched clock) shows up as
    a larger minimum. Likewise the baseline timed with the student's code loaded must not be
    much slower than the same baseline timed before that code existed. ``clean_gaps_ns``
    (the gaps of that clean baseline) bound both sides' gaps, so work hidden outside the
    clock on both sides alike shows up too. An excess (of the gap, or of the input building)
    up to ``CHARGE_MAX`` of the submission's own time is not rejected: bench_shape charges
    it to the submission's time."""
    for name, series in (("submission", sub), ("baseline", base)):
        for t, rt in zip(series.times_ns, series.round_trips_ns, strict=True):
            if t > rt:
                return f"a reported {name} time is longer than the grader's own round trip"
            if t < FLOOR_NS:
                return f"a reported {name} time is below the physical floor of {FLOOR_NS} ns"
    own_ns = statistics.median(sub.times_ns) if sub.times_ns else 0.0
    excess = gap_excess_ns(sub, base, clean_gaps_ns)
    if excess > CHARGE_MAX * own_ns:
        return (
            f"each call of the submission took at least {excess / 1e6:.3f} ms longer than "
            "it reported, beyond the channel's own cost"
        )
    # A sabotaged baseline first: the sharpest diagnosis when both show.
    if clean_baseline_ns:
        clean = min(clean_baseline_ns)
        loaded = min(base.times_ns)
        if loaded > BASELINE_SLOWDOWN * clean + GAP_FLOOR_NS:
            return (
                f"the baseline ran {loaded / clean:.1f}x slower once your code was loaded "
                f"({loaded / 1e6:.3f} ms against {clean / 1e6:.3f} ms at best)"
            )
    excess = prepare_excess_ns(sub, base, clean_prepares_ns)
    if excess > CHARGE_MAX * own_ns:
        return (
            f"building the inputs of each timed call of the submission took at least "
            f"{excess / 1e6:.3f} ms longer than the baseline's, more than "
            f"{CHARGE_MAX:.0%} of its own time: work was done ahead"
        )
    return ""


class _Verifier:
    def __init__(self, package: ProblemPackage, shape: BenchShape) -> None:
        self.fn = getattr(package.load_reference(), shape.fn)
        self.shape = shape
        self.tolerances = package.tolerances
        self.case = Case(name=f"benchmark {shape.name}", fn=shape.fn, make=lambda gen: Call())

    def check(self, session: Session, timed: Timed, timeout_s: float) -> TestResult | None:
        reply, blob = session.request(
            {"op": "last_output", "which": "submission"}, timeout_s, "the benchmark"
        )
        try:
            fetched = wire.digest_encoded(reply.get("value"), blob, timed.key)
        except (wire.WireError, TypeError, ValueError):
            fetched = ""
        if fetched != timed.digest:
            return TestResult(
                name=f"benchmark {self.shape.name}",
                public=False,
                verdict=Verdict.WA,
                message="your function's output changed after it returned (work was left "
                "running after the timed call)",
                wrong_kind=WrongKind.VALUE,
            )
        got_value = session.value(reply, blob, "value")
        args = inputs.build_inputs(self.shape.args, timed.seed)
        expected_value = self.fn(*inputs.late_input(self.shape.args, args, timed.late_seed))
        expected = {"kind": "return", "value": expected_value, "inputs_modified": [], "grads": None}
        got = {"kind": "return", "value": got_value, "inputs_modified": [], "grads": None}
        outcome = compare(expected, got, self.case, self.tolerances)
        if outcome.verdict == Verdict.AC:
            return None
        return TestResult(
            name=f"benchmark {self.shape.name}",
            public=False,
            verdict=Verdict.WA,
            message="your function's output during the benchmark differs from the reference",
            wrong_kind=outcome.wrong_kind or WrongKind.VALUE,
        )


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


def _time_one(
    session: Session,
    which: str,
    shape: BenchShape,
    baseline: str,
    rng: random.Random,
    device: str,
    timeout_s: float,
) -> Timed:
    """Time one call. Inputs are built in a separate request first, so the round trip of the
    time request holds little besides the call; that request draws one small argument from
    ``late_seed`` and returns the output's digest under ``key``."""
    what = f"the benchmark ({shape.name})"
    seed, late_seed, key = rng.getrandbits(62), rng.getrandbits(62), secrets.token_hex(16)
    prepare = {"op": "prepare", "which": which, "specs": shape.args, "seed": seed, "device": device}
    session.request(prepare, timeout_s, what)
    prepare_ns = session.last_round_trip_ns
    message: dict[str, Any] = {"op": "time", "which": which, "late_seed": late_seed, "key": key}
    if which == "baseline":
        message["baseline"] = baseline
    else:
        message["fn"] = shape.fn
    reply, _ = session.request(message, timeout_s, what)
    reported = reply.get("time_ns")
    if type(reported) is not int:
        reported = -1
    digest = reply.get("digest")
    return Timed(
        seed,
        late_seed,
        key,
        reported,
        session.last_round_trip_ns,
        digest if isinstance(digest, str) else "",
        prepare_ns,
    )


def clean_baselines(
    session: Session, package: ProblemPackage, device: str, rng: random.Random
) -> dict[str, Series]:
    """Baseline times and round trips per shape, taken before any student code is loaded (the
    runner must have imported the baselines already): the yardstick a loaded baseline, and
    the channel's cost on both sides, are checked against."""
    bench = package.benchmark
    out: dict[str, Series] = {}
    if bench is None:
        return out
    timeout_s = package.limits.time_s + 0.5
    for shape in bench.shapes:
        baseline = shape.baseline or bench.baseline
        series = Series()
        for i in range(2 + CLEAN_ROUNDS):
            timed = _time_one(session, "baseline", shape, baseline, rng, device, timeout_s)
            if i >= 2:
                series.times_ns.append(timed.reported_ns)
                series.round_trips_ns.append(timed.round_trip_ns)
                series.prepares_ns.append(timed.prepare_ns)
        out[shape.name] = series
    return out


def bench_shape(
    session: Session,
    package: ProblemPackage,
    shape: BenchShape,
    device: str,
    budget_s: float,
    rng: random.Random,
    clean_baseline: Series | None = None,
) -> tuple[BenchmarkResult | None, TestResult | None]:
    assert package.benchmark is not None
    baseline = shape.baseline or package.benchmark.baseline
    timeout_s = package.limits.time_s + 0.5
    verifier = _Verifier(package, shape)
    target = package.benchmark.target_rel_error
    sub, base = Series(), Series()
    rounds = 0
    verify_round = rng.randrange(WARMUP_ROUNDS, WARMUP_ROUNDS + MIN_ROUNDS)  # one at least
    sorted_sub: list[int] = []  # the submission's measured times, kept sorted

    def run_rounds(min_measured: int, budget: float) -> TestResult | None:
        """Rounds until ``min_measured`` more are measured and the target precision (or the
        budget) is reached; a WA test result if a verified output was wrong."""
        nonlocal rounds
        deadline = time.monotonic() + budget
        stop_at = max(rounds, WARMUP_ROUNDS) + min_measured
        while rounds < MAX_ROUNDS:
            order = ["submission", "baseline"]
            rng.shuffle(order)
            verify = rounds == verify_round or rng.random() < VERIFY_PROBABILITY
            for which in order:
                timed = _time_one(session, which, shape, baseline, rng, device, timeout_s)
                # A call at or below the median so far is checked. An unchecked call is then
                # slower than the median of its time, so by induction no median falls below
                # the times of checked (correct) calls, whatever wrong outputs come back fast.
                low = rounds >= WARMUP_ROUNDS and (
                    not sorted_sub or timed.reported_ns <= sorted_sub[len(sorted_sub) // 2]
                )
                if which == "submission" and (verify or low):
                    wrong = verifier.check(session, timed, timeout_s)
                    if wrong is not None:
                        return wrong
                if rounds >= WARMUP_ROUNDS:
                    series = sub if which == "submission" else base
                    if which == "submission":
                        bisect.insort(sorted_sub, timed.reported_ns)
                    series.times_ns.append(timed.reported_ns)
                    series.round_trips_ns.append(timed.round_trip_ns)
                    series.prepares_ns.append(timed.prepare_ns)
            rounds += 1
            if rounds >= stop_at and (
                time.monotonic() > deadline
                or max(
                    relative_error([float(t) for t in sub.times_ns]),
                    relative_error([float(t) for t in base.times_ns]),
                )
                <= target
            ):
                return None
        return None

    wrong = run_rounds(MIN_ROUNDS, budget_s)
    if wrong is not None:
        return None, wrong
    clean = clean_baseline.times_ns if clean_baseline else []
    clean_gaps = clean_baseline.gaps_ns if clean_baseline else []
    clean_prepares = clean_baseline.prepares_ns if clean_baseline else []
    problem = check_times(sub, base, clean, clean_gaps, clean_prepares)
    if problem:
        # Confirm before rejecting: a burst of load on a busy machine can inflate every gap of
        # a short series, while hidden work inflates every gap of any series. More rounds can
        # only lower the minima the check compares, so noise clears and a cheat stays.
        wrong = run_rounds(CONFIRM_ROUNDS, min(budget_s, CONFIRM_BUDGET_S))
        if wrong is not None:
            return None, wrong
        problem = check_times(sub, base, clean, clean_gaps, clean_prepares)
    if problem:
        # Only the grader's clock and the baseline timed before the student's code was loaded
        # are trusted now: the submission's time is its round trip less the channel's cost
        # (the baseline's smallest gap), which errs on the slow side.
        channel_ns = max(0, min(base.gaps_ns + clean_gaps))
        sub_ns = max(
            statistics.median(sub.round_trips_ns) - channel_ns, statistics.median(sub.times_ns)
        )
        sub_ms = sub_ns / 1e6
        base_ms = statistics.median(clean or base.times_ns) / 1e6
        note = f"timing rejected: {problem}; speedup from the grader's own clock"
        return BenchmarkResult(
            speedup=base_ms / sub_ms,
            submission_ms=sub_ms,
            baseline_ms=base_ms,
            repetitions=len(sub.times_ns),
            shape=shape.name,
            verified=False,
            note=note,
        ), None
    # Time outside the clock, within the bound check_times allows, counts as the submission's.
    charge_ns = gap_excess_ns(sub, base, clean_gaps) + prepare_excess_ns(sub, base, clean_prepares)
    sub_ms = (statistics.median(sub.times_ns) + charge_ns) / 1e6
    base_ms = statistics.median(base.times_ns) / 1e6
    if clean:  # a baseline slowed by the student's code (within the check's margin) gains nothing
        base_ms = min(base_ms, statistics.median(clean) / 1e6)
    return BenchmarkResult(
        speedup=base_ms / sub_ms,
        submission_ms=sub_ms,
        baseline_ms=base_ms,
        submission_spread=spread([float(t) for t in sub.times_ns]),
        baseline_spread=spread([float(t) for t in base.times_ns]),
        repetitions=len(sub.times_ns),
        shape=shape.name,
        verified=True,
        note=(
            f"each call charged {charge_ns / 1e6:.3f} ms spent outside its clock beyond the "
            "baseline's (the call's end or its inputs' building)"
            if charge_ns
            else ""
        ),
    ), None


def combine(results: list[BenchmarkResult]) -> BenchmarkResult:
    """One result for several shapes: geometric-mean speedup, summed medians."""
    if len(results) == 1:
        return results[0]
    speedup = math.exp(sum(math.log(r.speedup) for r in results) / len(results))
    notes = "; ".join(
        f"{r.shape}: x{r.speedup:.2f} ({r.submission_ms:.3f} vs {r.baseline_ms:.3f} ms)"
        for r in results
    )
    extra = "; ".join(r.note for r in results if r.note)
    return BenchmarkResult(
        speedup=speedup,
        submission_ms=sum(r.submission_ms for r in results),
        baseline_ms=sum(r.baseline_ms for r in results),
        submission_spread=max(r.submission_spread for r in results),
        baseline_spread=max(r.baseline_spread for r in results),
        repetitions=min(r.repetitions for r in results),
        shape=", ".join(r.shape for r in results),
        verified=all(r.verified for r in results),
        note=f"geometric mean over shapes; {notes}" + (f"; {extra}" if extra else ""),
    )


def run_benchmark(
    session: Session,
    package: ProblemPackage,
    device: str,
    clean: dict[str, Series] | None = None,
) -> tuple[BenchmarkResult | None, TestResult | None]:
    """(result, None), or (None, a WA test result) when a timed output was wrong. ``clean``:
    the baseline times per shape taken before the student's code was loaded."""
    bench = package.benchmark
    if bench is None or not bench.shapes:
        return None, None
    rng = random.SystemRandom()
    budget = bench.max_time_s / len(bench.shapes)
    results = []
    for shape in bench.shapes:
        clean_series = (clean or {}).get(shape.name)
        result, wrong = bench_shape(session, package, shape, device, budget, rng, clean_series)
        if wrong is not None:
            return None, wrong
        assert result is not None
        results.append(result)
    return combine(results), None

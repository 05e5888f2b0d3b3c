"""The benchmark: the student's function against the baseline kernel, each in its own sandbox.

Modules: ``stats`` (quartiles, relative error, spread), ``results`` (a shape's entry, the
notes, the combined result), ``timing`` (the interleaved rounds
across the two sandboxes), ``trust`` (the named rules that decide whether the reported times
are believed, charged or rejected) and ``verify`` (re-verification of timed outputs with the
hidden tests' own comparison).

Per shape: warm-up, then rounds in which the baseline's sandbox and the submission's each time
one call, in a random order, on fresh inputs built from a fresh seed, until the median of the
rounds' ratios (baseline / submission: the speedup) has a relative standard error under
``target_rel_error`` or the time budget is spent. The
baseline's sandbox holds only trusted code, so its times are believed. The submission's are
not:

* its last timed output is fetched and compared with the reference run here on the same
  inputs, for every timed call that reported a time at or below the median of its times so
  far (so no wrong output can pull the median down) and at rounds picked at random: a
  mismatch makes the judging WA;
* the time reply carries a digest of the output keyed by a secret sent with the request,
  which the fetched output must match (an output finished by a thread after the call
  returned does not); one small argument is drawn only by the time request itself, so
  nothing can be computed ahead while the inputs are prepared;
* the trust rules (sandbox/bench/trust.py) compare its reported times with the grader's
  clock and the time it spends outside its clock with the baseline's;
* where the baseline's calls waited for a CPU (its sandbox reports its threads' run delay
  around each call), the baseline's figure is capped at its times with the student's sandbox
  stopped (the quiet baseline, timed halfway through the rounds and after them, at their
  cadence; the slower block counts): code left running between the student's calls on the
  shared CPUs cannot slow the baseline to its gain.

A rejected timing (``Trust.REJECTED``) has no speedup: no figure overall or per shape, no time
of the submission, no fraction of the speed of light, so nothing downstream (the site, its
boards, the API) can show or rank one; its note says why and invites a resubmit. (It once
compared the baseline with the grader's round trip of the timed call, and a submission that
did its work while the inputs were prepared, outside that round trip, was credited x3.98.)
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sandbox.bench.peak import Peak, SpeedOfLight, speed_of_light
from sandbox.bench.results import combine, rejected, shape_entry, waited_note
from sandbox.bench.shape_rule import shapes_for
from sandbox.bench.stats import paired_ratio, quartiles, relative_error, spread
from sandbox.bench.timing import (
    FINE_BUDGET_CONTENDED_S,
    FINE_BUDGET_S,
    FINE_REL_ERROR,
    MIN_ROUNDS,
    QUIET_MAX_IDLE_S,
    Rounds,
    Series,
    Timed,
    slower_block,
)
from sandbox.bench.trust import (
    POLICY,
    TrustPolicy,
    baseline_quiet_cap,
    baseline_waited,
    check_times,
    faster_than_light,
    merged,
    needs_quiet_cap,
)
from sandbox.bench.verify import Verifier, comparison_case
from sandbox.grader.contracts import BenchmarkResult, TestResult, Trust
from sandbox.grader.package import BenchShape, ProblemPackage
from sandbox.host.backends.cpu_sets import CONTENDED_CPU_PRESSURE, PressureMeter
from sandbox.problem import Case

if TYPE_CHECKING:
    from sandbox.grader.session import Session

__all__ = [
    "Series",
    "Timed",
    "TrustPolicy",
    "bench_shape",
    "check_times",
    "combine",
    "confirmed_light",
    "comparison_case",
    "quartiles",
    "relative_error",
    "run_benchmark",
    "spread",
]


def bench_shape(
    sub_session: Session,
    base_session: Session,
    package: ProblemPackage,
    shape: BenchShape,
    baseline_fn: str,
    device: str,
    budget_s: float,
    rng: random.Random,
    cases: list[Case],
    policy: TrustPolicy = POLICY,
    peak: Peak | None = None,
    remeasure: Callable[[], Peak | None] | None = None,
) -> tuple[BenchmarkResult | None, TestResult | None]:
    """(result, None), or (None, a WA test result) when a timed output was wrong.
    ``baseline_fn``: the baseline's function name in the baseline's sandbox; ``peak``: the
    machine's limits, which with the shape's cost model give its speed of light;
    ``remeasure``: measures them again (before a time is rejected as faster than light)."""
    assert package.benchmark is not None
    timeout_s = package.limits.time_s + 0.5
    verifier = Verifier(package, shape, cases)
    target = package.benchmark.target_rel_error
    rounds = Rounds(
        sub_session,
        base_session,
        shape,
        baseline_fn,
        device,
        timeout_s,
        rng,
        lambda timed: verifier.check(sub_session, timed, timeout_s),
    )
    # The quiet baseline is taken twice, halfway through the minimum rounds and after the
    # last one; the cap compares with the slower block (sandbox/bench/timing.py). Only where
    # the baseline's calls waited for a CPU (``baseline_waited``) while the student's sandbox
    # may have run (``ran_beside``): otherwise nothing of the student's slowed them, and a
    # quiet block (the baseline's data left in the caches between its calls) would only scale
    # an honest speedup down.
    started = time.monotonic()
    # The timed sandboxes' own CPU pressure where the backend reads it (else the host's): the
    # judge's relay waiting behind the timed code is no contention of it.
    pressure = PressureMeter(boxes=lambda: (sub_session.box, base_session.box))
    wrong = rounds.run(MIN_ROUNDS // 2, budget_s / 2, math.inf)
    if wrong is not None:
        return None, wrong
    quiet_blocks: list[Series | None] = []
    if needs_quiet_cap(rounds.base, policy):
        quiet_blocks.append(
            rounds.quiet_baseline(cadence_s(rounds.sub))
        )
    left_s = max(0.0, budget_s - (time.monotonic() - started))
    wrong = rounds.run(MIN_ROUNDS - MIN_ROUNDS // 2, left_s, target)
    if wrong is not None:
        return None, wrong
    # Past the package's target, rounds go on to FINE_REL_ERROR for at most FINE_BUDGET_S of
    # the shape's time (FINE_BUDGET_CONTENDED_S where the timed sandboxes waited for a CPU, or
    # the host's tasks did where that is not known: a busy host scatters each round more): 20 rounds of a noisy shape leave a few per cent of
    # chance between two judgings of the same file, which ranks noise on a leaderboard.
    share = pressure.share()
    contended = (
        share > CONTENDED_CPU_PRESSURE if share is not None else baseline_waited(rounds.base, policy)
    )
    fine_budget_s = FINE_BUDGET_CONTENDED_S if contended else FINE_BUDGET_S
    fine_s = min(budget_s, fine_budget_s) - (time.monotonic() - started)
    if fine_s > 0 and rounds.precision() > FINE_REL_ERROR:
        wrong = rounds.run(1, fine_s, FINE_REL_ERROR)
        if wrong is not None:
            return None, wrong
    finding = check_times(rounds.sub, rounds.base, policy)
    if finding.trust == Trust.REJECTED:
        # Confirm before rejecting: a burst of load on a busy machine can inflate every gap of
        # a short series, while hidden work inflates every gap of any series. More rounds can
        # only sharpen the medians the check compares, so noise clears and a cheat stays.
        wrong = rounds.run(policy.confirm_rounds, min(budget_s, policy.confirm_budget_s), target)
        if wrong is not None:
            return None, wrong
        finding = check_times(rounds.sub, rounds.base, policy)
    sub, base = rounds.sub, rounds.base
    if needs_quiet_cap(base, policy):
        # The quiet baseline keeps the rounds' cadence: between its calls, the time the
        # submission's calls took (an idle CPU between calls slows a microseconds-long call).
        quiet_blocks.append(
            rounds.quiet_baseline(cadence_s(sub))
        )
        base_ns, capped = baseline_quiet_cap(base, slower_block(quiet_blocks), policy)
        finding = merged(finding, capped)
        bounded = waited_note(base, quiet_blocks)
    else:
        base_ns = float(statistics.median(base.times_ns))
        bounded = ""
    base_ms = base_ns / 1e6
    light = speed_of_light(shape.cost, peak) if shape.cost is not None and peak is not None else None
    if light is not None and finding.trust != Trust.REJECTED:
        light = confirmed_light(shape, light, statistics.median(sub.times_ns) / 1e6, remeasure)
        finding = faster_than_light(statistics.median(sub.times_ns), light.sol_ms * 1e6) or finding
    common = {
        "baseline_ms": base_ms,
        "repetitions": len(sub.times_ns),
        "shape": shape.name,
        "trust": finding.trust,
        "rule": finding.rule,
    }
    if finding.trust == Trust.REJECTED:
        return rejected(shape, base_ms, finding, light, common), None
    # The speedup is the median of the rounds' own ratios: both calls of a round run within
    # milliseconds of each other, so a burst of load on the host slows both and leaves their
    # ratio (a ratio of the two medians takes each call's luck separately). The quiet cap and
    # the charges scale it as they scale the medians; the submission's time is the one the
    # ratio implies (baseline / speedup), so that speedup == baseline_ms / submission_ms.
    sub_median = statistics.median(sub.times_ns)
    paired = paired_ratio(base.times_ns, sub.times_ns)
    if paired <= 0 or sub_median <= 0:  # no usable pair (the rules reject such times first)
        sub_median = max(1.0, sub_median)
        paired = statistics.median(base.times_ns) / sub_median  # uncapped: the cap comes next
    speedup = (
        paired
        * (base_ns / statistics.median(base.times_ns))
        * (sub_median / (sub_median + finding.charge_ns))
    )
    submission_ms = base_ms / speedup
    if light is not None and submission_ms < light.sol_ms:  # the speedup implies a time below it
        light = confirmed_light(shape, light, submission_ms, remeasure)
    if light is not None and submission_ms < light.sol_ms:
        finding = faster_than_light(submission_ms * 1e6, light.sol_ms * 1e6) or finding
        common.update(trust=finding.trust, rule=finding.rule)
        return rejected(shape, base_ms, finding, light, common), None
    return BenchmarkResult(
        speedup=speedup,
        submission_ms=submission_ms,
        submission_spread=spread([float(t) for t in sub.times_ns]),
        baseline_spread=spread([float(t) for t in base.times_ns]),
        note="; ".join(part for part in (finding.message, bounded) if part),
        shapes=[shape_entry(shape, submission_ms, base_ms, light)],
        **common,  # type: ignore[arg-type]
    ), None


def confirmed_light(
    shape: BenchShape,
    light: SpeedOfLight,
    submission_ms: float,
    remeasure: Callable[[], Peak | None] | None,
) -> SpeedOfLight:
    """The shape's speed of light, measured again before a time below it is rejected: a
    measurement taken in a busy moment understates the machine (the best figures are kept),
    and honest code must not pay for it."""
    if submission_ms >= light.sol_ms or remeasure is None or shape.cost is None:
        return light
    again = remeasure()
    newer = speed_of_light(shape.cost, again) if again is not None else None
    return newer if newer is not None and newer.sol_ms < light.sol_ms else light


def cadence_s(series: Series) -> float:
    """How long one of ``series``'s calls took, input build included (at most
    ``QUIET_MAX_IDLE_S``): the idle between the calls of a quiet block."""
    if not series.round_trips_ns:
        return 0.0
    typical = statistics.median(
        p + rt for p, rt in zip(series.prepares_ns, series.round_trips_ns, strict=True)
    )
    return min(QUIET_MAX_IDLE_S, typical / 1e9)


def run_benchmark(
    sub_session: Session,
    base_session: Session,
    package: ProblemPackage,
    device: str,
    baseline_names: dict[str, str],
    cases: list[Case],
    peak: Peak | None = None,
    remeasure: Callable[[], Peak | None] | None = None,
) -> tuple[BenchmarkResult | None, TestResult | None]:
    """(result, None), or (None, a WA test result) when a timed output was wrong.
    ``base_session``: the baseline's own sandbox, its file loaded; ``baseline_names``: each
    baseline ("kernels.module:function") to its function name there; ``cases``: the
    package's test cases (their comparisons re-verify timed outputs)."""
    bench = package.benchmark
    shapes = shapes_for(bench.shapes, device) if bench is not None else []
    if bench is None or not shapes:
        return None, None
    rng = random.SystemRandom()
    budget = bench.max_time_s / len(shapes)
    results = []
    for shape in shapes:
        baseline_fn = baseline_names[shape.baseline or bench.baseline]
        result, wrong = bench_shape(
            sub_session, base_session, package, shape, baseline_fn, device, budget, rng, cases,
            peak=peak, remeasure=remeasure,
        )
        if wrong is not None:
            return None, wrong
        assert result is not None
        results.append(result)
    return combine(results), None

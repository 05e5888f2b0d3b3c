"""The trust checks of a benchmark: may the times a sandbox reported be believed?

The student's runner reports its own times and shares its process with the student's code,
so the grader checks them against its own clock. The baseline runs in a sandbox of its own
that no student code ever touches (sandbox/bench/timing.py), so its series is the yardstick:

* ``time_within_round_trip``: a reported time longer than the grader's own round trip of the
  time request is impossible (a patched or rewound clock): rejected.
* ``time_above_floor``: a reported time below a physical floor: rejected.
* ``gap_excess``: the part of the round trip outside the reported time (the gap) is the
  channel's own cost, the same in both sandboxes: their medians are compared (``typical``;
  noise on a busy machine adds to both alike, and a minimum is one lucky call).
  Work hidden in the time request around the clock shows as a larger minimum gap.
* ``prepare_excess``: likewise for the round trip of the request that builds the inputs of a
  timed call: work done ahead, while the inputs are built, shows there.

* ``baseline_quiet_cap``: the two sandboxes share a CPU set, so code the student leaves running
  between its own timed calls (a spinning thread, a child process) slows the baseline's calls
  (up to 2x on one CPU). To slow a call it must run while the call wants the CPU, and then
  the baseline's threads wait in the run queue: the baseline's sandbox reports that wait
  around every call (the kernel's run delay, read outside its clock). When its calls waited,
  in all, more than ``quiet_wait_fraction`` of their time (``baseline_waited``), or the wait
  is not known, the baseline is timed with the student's sandbox stopped, at the rounds'
  cadence (the quiet baseline: halfway through the rounds and after them, the slower of the
  blocks, sandbox/bench/timing.py), and its figure is never above the quiet median by more
  than ``quiet_slack_fraction``, so slowing it gains at most that. Beyond
  ``quiet_charge_fraction`` the result is marked charged and says why (honest code on a busy
  machine stays below it; a spinner on one CPU doubles the baseline). Without a wait the cap
  is not applied: with the student's code stopped, the baseline kept its data in the caches
  between its calls and ran 5-16 % faster than in the rounds (problem 48's table lookup,
  honest solutions), so the cap scaled honest speedups down at random. What the wait cannot
  show is code that ran only between the baseline's calls, never during one: it leaves the
  caches as cold as any large honest call of the student's does, and each baseline call's
  inputs are written afresh just before it. Nor is every wait the student's: on a busy host
  the engine, the web server and another worker's sandbox starts make the baseline wait with
  the student's code stopped too (``quiet_wait_share``; under four clients' Submits 2-62 % of
  its time, beside the student's code 3-47 %, in no fixed order). The cap still applies
  there: with waits that scatter so, a spinner tuned to a busy host could hide in the
  difference, and its gain would be a factor, not a few per cent.
* ``ran_beside``: so the wait is weighed against what the student's sandbox did meanwhile.
  Its CPU time, as the kernel charges it to the sandbox's cgroup (every thread and child
  process inside, whatever they report), is read right before and after every timed call of
  the baseline (sandbox/host/backends/cgroup_cpu.py). Code that slows the baseline's call on a
  shared CPU must run during it, and the CPU it takes is counted there; honest code is
  blocked on its channel meanwhile and uses none (0-30 us over a whole shape). Where the
  student's sandbox used at most ``beside_cpu_fraction`` of the baseline calls' round trips,
  it can have slowed them by about that much at most, the wait was the host's, and the quiet
  cap is not applied. Under four clients' Submits on a 2-core host the baseline waited on
  almost every shape and the cap scaled honest speedups by a random 0.9-1.0 (CV 3.6 %, mean
  0.95 against 1.01 alone). Where the CPU time is not known, the cap applies as above.
  What the cgroup does not count is work the student's code makes others do: bytes it writes
  on its channel are copied again by the engine's processes (shim, daemon) outside its
  cgroup. Its own write copies each byte first and is counted, so that work is of the same
  order as what the threshold admits (a few per cent at most), and bytes sent out of turn
  reach the grader as the next reply: anything but a well-formed one ends the judging.

* ``faster_than_light``: a submission whose median reported time (or the time its speedup
  implies) is below the shape's speed of light (``sol_ms``, sandbox/bench/peak.py: the
  shape's cost model against the machine's measured limits) did what no machine can; the
  timing is rejected, and the time shown is never below the speed of light.

An excess of either kind (gap, prepare) up to ``charge_max_fraction`` of the submission's own time is charged
to it (honest code that runs long causes some on a busy machine: preempted at the end of its
time slice, the allocator left in another state); beyond, the timing is rejected.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.bench.timing import Series
from sandbox.grader.contracts import Trust


@dataclass(frozen=True)
class TrustPolicy:
    """The constants of the rules, with their units."""

    floor_ns: int = 1_000  # no call through the runner is faster than a microsecond
    gap_floor_ns: int = 50_000  # extra time outside the clock always tolerated (channel jitter)
    gap_baseline_fraction: float = 0.25  # plus this fraction of the baseline's own minimum
    # Time outside the clock beyond the baseline's is charged to the submission up to this
    # fraction of its own median time; beyond it the timing is rejected.
    charge_max_fraction: float = 0.5
    # The baseline's figure: at most its quiet median (student's sandbox stopped) plus this
    # fraction of it (load drift between the quiet and the interleaved rounds, noise of its 15 calls).
    quiet_slack_fraction: float = 0.05
    # The interleaved baseline's median AND minimum more than this fraction above the quiet
    # ones: charged (a spinner on one CPU doubles both; honest code on a host at 60 % CPU
    # pressure reached 1.3-1.6 on the median of a 40 us call).
    quiet_charge_fraction: float = 0.5
    # The baseline's calls waited for a CPU (run delay) more than this fraction of their
    # summed time: something else ran on its CPU set during them, and the quiet cap applies.
    # Alone on its CPUs a call waits 0-0.2 % of its time; a spinner beside it, about half.
    quiet_wait_fraction: float = 0.02
    # The student's sandbox used more CPU than this fraction of the round trips of the
    # baseline's calls during them (``ran_beside``): the quiet cap applies where it waited.
    beside_cpu_fraction: float = 0.01
    confirm_rounds: int = 20  # more rounds before a timing is rejected (noise clears)
    confirm_budget_s: float = 5.0


POLICY = TrustPolicy()


@dataclass(frozen=True)
class Finding:
    """What one rule concluded: ``trust`` (charged or rejected), why, and what is charged."""

    rule: str
    trust: Trust
    message: str
    charge_ns: int = 0


VERIFIED = Finding("", Trust.VERIFIED, "")


def typical(values: list[int]) -> float:
    """A series' figure for the gap and input-build rules: its median. Their minima (or low
    quartiles) are luck: the inputs of problem 48 (8 MiB) are built in 1.3-1.5 ms or 2-2.3 ms
    call by call in both sandboxes, in proportions that differ from one series of ten to the
    next; compared at the minima, then the lower quartiles, a correct solution was charged
    0.6 ms a call (a fifth of its speedup) in a third of its judgings on an idle machine."""
    return float(statistics.median(values))


def _excess(own: list[int], baseline: list[int], policy: TrustPolicy) -> int:
    """How much larger ``own`` (the submission's) is than the baseline's values, their
    :func:`typical` figures compared, or 0 within the jitter always tolerated."""
    if not own or not baseline:
        return 0
    mine, theirs = typical(own), typical(baseline)
    if mine - theirs > policy.gap_floor_ns + policy.gap_baseline_fraction * theirs:
        return int(mine - theirs)
    return 0


def gap_excess_ns(sub: Series, base: Series, policy: TrustPolicy = POLICY) -> int:
    """How much longer, typically, the submission's timed calls took outside its clock than the
    baseline's, or 0 within the jitter always tolerated."""
    return _excess(sub.gaps_ns, base.gaps_ns, policy)


def prepare_excess_ns(sub: Series, base: Series, policy: TrustPolicy = POLICY) -> int:
    """How much longer, typically, building the inputs of the submission's timed calls took than
    the baseline's, or 0 within the jitter always tolerated."""
    return _excess(sub.prepares_ns, base.prepares_ns, policy)


def time_within_round_trip(sub: Series, base: Series, policy: TrustPolicy) -> Finding | None:
    for name, series in (("submission", sub), ("baseline", base)):
        if any(t > rt for t, rt in zip(series.times_ns, series.round_trips_ns, strict=True)):
            return Finding(
                "time_within_round_trip",
                Trust.REJECTED,
                f"a reported {name} time is longer than the grader's own round trip",
            )
    return None


def time_above_floor(sub: Series, base: Series, policy: TrustPolicy) -> Finding | None:
    for name, series in (("submission", sub), ("baseline", base)):
        if any(t < policy.floor_ns for t in series.times_ns):
            return Finding(
                "time_above_floor",
                Trust.REJECTED,
                f"a reported {name} time is below the physical floor of {policy.floor_ns} ns",
            )
    return None


def _charged_or_rejected(
    rule: str, excess_ns: int, sub: Series, policy: TrustPolicy, rejected: str
) -> Finding | None:
    if not excess_ns:
        return None
    own_ns = statistics.median(sub.times_ns) if sub.times_ns else 0.0
    if excess_ns > policy.charge_max_fraction * own_ns:
        return Finding(rule, Trust.REJECTED, rejected)
    return Finding(rule, Trust.CHARGED, "", excess_ns)


def gap_excess(sub: Series, base: Series, policy: TrustPolicy) -> Finding | None:
    excess = gap_excess_ns(sub, base, policy)
    return _charged_or_rejected(
        "gap_excess", excess, sub, policy,
        f"each call of the submission took at least {excess / 1e6:.3f} ms longer than it "
        "reported, beyond the channel's own cost",
    )


def prepare_excess(sub: Series, base: Series, policy: TrustPolicy) -> Finding | None:
    excess = prepare_excess_ns(sub, base, policy)
    return _charged_or_rejected(
        "prepare_excess", excess, sub, policy,
        f"building the inputs of each timed call of the submission took at least "
        f"{excess / 1e6:.3f} ms longer than the baseline's, more than "
        f"{policy.charge_max_fraction:.0%} of its own time: work was done ahead",
    )


Rule = Callable[[Series, Series, TrustPolicy], "Finding | None"]
# In order: the first rejection is the diagnosis; charges add up.
RULES: tuple[Rule, ...] = (time_within_round_trip, time_above_floor, gap_excess, prepare_excess)


def faster_than_light(submission_ns: float, sol_ns: float) -> Finding | None:
    """Rejected when ``submission_ns`` (its median reported time, or the time its speedup
    implies) is below the speed of light ``sol_ns`` of the shape: physically impossible."""
    if sol_ns <= 0 or submission_ns >= sol_ns:
        return None
    return Finding(
        "faster_than_light",
        Trust.REJECTED,
        f"a reported time of {submission_ns / 1e6:.4f} ms is below the shape's speed of light "
        f"({sol_ns / 1e6:.4f} ms): no machine moves its bytes and does its arithmetic that fast",
    )


def check_times(sub: Series, base: Series, policy: TrustPolicy = POLICY) -> Finding:
    """The verdict of every rule on the two series: the first rejection, else the sum of the
    charges (``Trust.CHARGED``), else ``VERIFIED``."""
    charges: list[Finding] = []
    for rule in RULES:
        finding = rule(sub, base, policy)
        if finding is None:
            continue
        if finding.trust == Trust.REJECTED:
            return finding
        charges.append(finding)
    if not charges:
        return VERIFIED
    total = sum(f.charge_ns for f in charges)
    return Finding(
        "+".join(f.rule for f in charges),
        Trust.CHARGED,
        f"each call charged {total / 1e6:.3f} ms spent outside its clock beyond the "
        "baseline's (the call's end or its inputs' building)",
        total,
    )


def wait_share(base: Series) -> float | None:
    """The share of its calls' summed time the baseline's threads waited for a CPU, or None
    when nothing was timed or any call's wait is unknown."""
    if not base.times_ns or any(w < 0 for w in base.waited_ns):
        return None
    return sum(base.waited_ns) / max(1, sum(base.times_ns))


def baseline_waited(base: Series, policy: TrustPolicy = POLICY) -> bool:
    """Whether the baseline's calls waited for a CPU, in all, more than
    ``quiet_wait_fraction`` of their time, or any wait is unknown (then the quiet cap applies)."""
    share = wait_share(base)
    return share is None or share > policy.quiet_wait_fraction


def beside_share(base: Series) -> float | None:
    """The CPU time the student's sandbox used during the baseline's calls, as a share of
    their round trips, or None when nothing was timed or any call's figure is unknown."""
    if not base.beside_ns or any(b < 0 for b in base.beside_ns):
        return None
    return sum(base.beside_ns) / max(1, sum(base.round_trips_ns))


def ran_beside(base: Series, policy: TrustPolicy = POLICY) -> bool:
    """Whether the student's sandbox may have run beside the baseline's calls: it used more
    than ``beside_cpu_fraction`` of their round trips in CPU time, or that is not known."""
    share = beside_share(base)
    return share is None or share > policy.beside_cpu_fraction


def needs_quiet_cap(base: Series, policy: TrustPolicy = POLICY) -> bool:
    """The quiet cap applies where the baseline's calls waited for a CPU
    (``baseline_waited``) and the student's sandbox may have run meanwhile (``ran_beside``)."""
    return baseline_waited(base, policy) and ran_beside(base, policy)


def quiet_wait_share(quiet_blocks: list[Series | None]) -> float | None:
    """The baseline's wait share over the quiet blocks taken (the student's sandbox stopped),
    or None when no block was taken or a wait is unknown."""
    taken = [block for block in quiet_blocks if block is not None and block.times_ns]
    if not taken:
        return None
    combined = Series(
        [t for block in taken for t in block.times_ns],
        waited_ns=[w for block in taken for w in block.waited_ns],
    )
    return wait_share(combined)


def baseline_quiet_cap(
    base: Series, quiet: Series | None, policy: TrustPolicy = POLICY
) -> tuple[float, Finding | None]:
    """The baseline's figure in ns: the median of its interleaved times, capped at the quiet
    median plus ``quiet_slack_fraction``; and a charged finding when the interleaved median and
    minimum exceed the quiet ones by more than ``quiet_charge_fraction``. ``quiet`` None or empty (a
    backend that cannot stop a sandbox): the median, uncapped."""
    median = float(statistics.median(base.times_ns)) if base.times_ns else 0.0
    if quiet is None or not quiet.times_ns or median <= 0:
        return median, None
    quiet_ns = float(statistics.median(quiet.times_ns))
    cap = quiet_ns * (1 + policy.quiet_slack_fraction)
    if median <= cap:
        return median, None
    finding = None
    # Charged only when the fastest call too was slowed: a burst of load on a busy host slows
    # some calls (the median), code spinning beside the baseline slows every one.
    bound = 1 + policy.quiet_charge_fraction
    if median > quiet_ns * bound and min(base.times_ns) > min(quiet.times_ns) * bound:
        finding = Finding(
            "baseline_quiet_cap",
            Trust.CHARGED,
            f"the baseline ran {median / quiet_ns:.2f}x slower beside your code than with your "
            "code stopped: its time with your code stopped counts",
        )
    return cap, finding


def merged(first: Finding, other: Finding | None) -> Finding:
    """Two findings as one: the worse trust, both rules and messages, the charges summed."""
    if other is None:
        return first
    if not first.rule:
        return other
    return Finding(
        "+".join(f.rule for f in (first, other) if f.rule),
        Trust.worst([first.trust, other.trust]),
        "; ".join(f.message for f in (first, other) if f.message),
        first.charge_ns + other.charge_ns,
    )

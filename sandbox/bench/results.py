"""What a benchmark's figures become: a shape's entry (times, speedup, the speed of light), a
rejected timing's result and note, the note of a baseline capped at its quiet times, and the
shapes combined into one result (sandbox/bench/__init__.py runs the benchmark itself).
"""

from __future__ import annotations

import math

from sandbox.bench.peak import SpeedOfLight
from sandbox.bench.timing import Series
from sandbox.bench.trust import Finding, quiet_wait_share, wait_share
from sandbox.grader.contracts import REJECTED_NEXT, BenchmarkResult, Trust, unbelieved
from sandbox.grader.cost import CostError
from sandbox.grader.package import BenchShape


def rejected(
    shape: BenchShape,
    base_ms: float,
    finding: Finding,
    light: SpeedOfLight | None,
    common: dict[str, object],
) -> BenchmarkResult:
    """A rejected timing: the submission's times are not believed, so it gets no speedup, no
    time and no fraction of the speed of light (the grader's own round trip of the timed call
    is no stand-in: work done while the inputs were prepared lies outside it). The baseline's
    time and the shape's speed of light are the trusted sandbox's and the machine's: kept."""
    return BenchmarkResult(
        speedup=None,
        submission_ms=None,
        note=rejected_note(finding.message),
        shapes=[shape_entry(shape, None, base_ms, light)],
        **common,  # type: ignore[arg-type]
    )


def rejected_note(message: str) -> str:
    """A rejected timing's note: the rule's finding, and what to do next."""
    return f"timing rejected: {message}. {REJECTED_NEXT}"


def shape_entry(
    shape: BenchShape,
    submission_ms: float | None,
    baseline_ms: float,
    light: SpeedOfLight | None,
) -> dict[str, object]:
    """One object of ``benchmark.shapes``: the shape's times, speedup and speed of light, and
    its cost model's figures (``bytes``, ``flops``: stored so that no page evaluates the
    model). ``submission_ms`` None: a rejected timing (no speedup, no fraction of light)."""
    speedup = fraction = None
    if submission_ms is not None and submission_ms > 0:
        speedup = baseline_ms / submission_ms
        fraction = light.sol_ms / submission_ms if light is not None else None
    moved = flops = None
    if shape.cost is not None:
        try:
            moved, flops = shape.cost.bytes, shape.cost.flops
        except CostError:  # a model made in code, never loaded (a package refuses it)
            pass
    return {
        "name": shape.name,
        "submission_ms": submission_ms,
        "baseline_ms": baseline_ms,
        "speedup": speedup,
        "sol_ms": light.sol_ms if light is not None else None,
        "sol_fraction": fraction,
        "bound": light.bound if light is not None else None,
        "bytes": moved,
        "flops": flops,
    }


# How a result's note ends when the quiet cap was weighed (the hostile tests look for it).
QUIET_CAP_NOTE = "its time with your code stopped bounds it"


def waited_note(base: Series, quiet_blocks: list[Series | None]) -> str:
    """What a result says when the quiet cap was weighed: how long the baseline waited beside
    the student's code and with it stopped."""
    share, stopped = wait_share(base), quiet_wait_share(quiet_blocks)
    said = (
        "the baseline's wait for a CPU is not known"
        if share is None
        else f"the baseline waited {100 * share:.1f} % of its time for a CPU"
    )
    if stopped is not None:
        said += f" ({100 * stopped:.1f} % with your code stopped)"
    return f"{said}: {QUIET_CAP_NOTE}"


def combine(results: list[BenchmarkResult]) -> BenchmarkResult:
    """One result for several shapes: geometric-mean speedup, summed medians, worst trust.
    One shape rejected rejects the whole timing: no speedup, no time and no per-shape figures
    of the submission (the rule that caught one shape may have missed a milder copy of the
    same trick on another), and ``rule`` names the rejecting rules only."""
    if len(results) == 1:
        return results[0]
    trust = Trust.worst([r.trust for r in results])
    common = {
        "baseline_ms": sum(r.baseline_ms for r in results),
        "baseline_spread": max(r.baseline_spread for r in results),
        "repetitions": min(r.repetitions for r in results),
        "shape": ", ".join(r.shape for r in results),
        "trust": trust,
    }
    if trust == Trust.REJECTED:
        # The note names the rejected shapes and why, and no figure of any shape's.
        why = "; ".join(
            f"{r.shape}: {r.note.removesuffix(' ' + REJECTED_NEXT).rstrip('.')}"
            for r in results
            if r.trust == trust
        )
        return BenchmarkResult(
            speedup=None,
            submission_ms=None,
            rule="; ".join(sorted({r.rule for r in results if r.trust == trust and r.rule})),
            note=f"{why}. {REJECTED_NEXT}",
            shapes=[unbelieved(entry) for r in results for entry in r.shapes],
            **common,  # type: ignore[arg-type]
        )
    notes = "; ".join(
        f"{r.shape}: x{r.speedup:.2f} ({r.submission_ms:.3f} vs {r.baseline_ms:.3f} ms)"
        for r in results
        if r.speedup is not None and r.submission_ms is not None
    )
    extra = "; ".join(r.note for r in results if r.note)
    speedups = [r.speedup for r in results if r.speedup is not None]
    times = [r.submission_ms for r in results if r.submission_ms is not None]
    return BenchmarkResult(
        speedup=math.exp(sum(math.log(v) for v in speedups) / len(speedups)),
        submission_ms=sum(times),
        submission_spread=max(r.submission_spread for r in results),
        rule="; ".join(sorted({r.rule for r in results if r.rule})),
        note=f"geometric mean over shapes; {notes}" + (f"; {extra}" if extra else ""),
        shapes=[entry for r in results for entry in r.shapes],
        **common,  # type: ignore[arg-type]
    )

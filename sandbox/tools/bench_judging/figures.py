"""bench_judging's figures: the targets and PASS/FAIL lines, percentiles and CV, each judging's
phases, CPU pressure and trust, and the solution repeated for the ordering pairs."""

from __future__ import annotations

import collections
import math
import re
import statistics
from typing import Any

from sandbox.host.backends.cpu_sets import CONTENDED_CPU_PRESSURE
from sandbox.tools.bench_judging.client import Judged

# A part whose timings read a host CPU pressure above this (median) ran on a machine busy beyond
# the stack under test (other work on its cores): its CV is said not to be the judge's.
SATURATED_HOST_PRESSURE = 0.9

TARGETS = {
    "burst_per_min": (">=", 60.0),
    "burst_lost": ("<=", 0),
    "run_p50_s": ("<=", 0.25),
    "submit_p50_s": ("<=", 2.0),
    "cv_pct": ("<=", 3.0),
    "cv_load_pct": ("<=", 3.0),
    "order_right": (">=", 19),
    "contended_verified": ("<=", 0),
}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def cv_pct(values: list[float]) -> float:
    if len(values) < 2:
        return float("nan")
    return 100.0 * statistics.stdev(values) / statistics.mean(values)


def meets(key: str, value: float) -> bool:
    """The figure ``key`` meets its target (NaN, a figure without values, never does)."""
    op, target = TARGETS[key]
    if isinstance(value, float) and math.isnan(value):
        return False
    return value >= target if op == ">=" else value <= target


def verdict_line(key: str, value: float, label: str, unit: str = "") -> str:
    op, target = TARGETS[key]
    ok = meets(key, value)
    return f"  {label:<46} {value:>9.3f}{unit:<5} target {op} {target:<6} {'PASS' if ok else 'FAIL'}"


def phase_medians(judged: list[Judged]) -> str:
    """Median of each phase the worker recorded (environment.phases), in ms."""
    by_phase: dict[str, list[float]] = collections.defaultdict(list)
    for j in judged:
        for name, value in (j.environment.get("phases") or {}).items():
            if isinstance(value, int | float):
                by_phase[name].append(float(value))
    if not by_phase:
        return "    (no per-phase breakdown in the results' environment)"
    parts = [f"{name} {1000 * statistics.median(v):.0f}" for name, v in by_phase.items()]
    pooled = sum(1 for j in judged if j.environment.get("sandbox") == "pooled")
    contended = sum(1 for j in judged if str(j.environment.get("timing_contended", "")).startswith("yes"))
    tail = f"; pooled {pooled}/{len(judged)}"
    if any(j.mode == "submit" for j in judged):
        tail += f"; timed under contention {contended}/{len(judged)}"
        tail += pressure_medians(judged)
        trusts = collections.Counter(str((j.benchmark or {}).get("trust", "none")) for j in judged)
        tail += "; timings " + ", ".join(f"{k} {v}" for k, v in sorted(trusts.items()))
    return "    phases, median ms: " + ", ".join(parts) + tail


def pressure_medians(judged: list[Judged]) -> str:
    """The timings' CPU pressure, median: the figure the contended rule read (the timed
    sandboxes' own, or the host's where that is unknown) and the host's beside it."""
    def median_of(key: str) -> str:
        values = []
        for j in judged:
            try:
                values.append(float(j.environment[key]))
            except (KeyError, TypeError, ValueError):
                continue
        return f"{statistics.median(values):.2f}" if values else "-"

    whose = collections.Counter(str(j.environment.get("timing_pressure_of", "host")) for j in judged
                                if "timing_cpu_pressure" in j.environment)
    if not whose:
        return ""
    return (f"; CPU pressure read by the rule {median_of('timing_cpu_pressure')} ("
            + ", ".join(f"{k} {v}" for k, v in sorted(whose.items()))
            + f"), host {median_of('timing_host_cpu_pressure')}")


def as_float(value: Any) -> float | None:
    """``value`` as a float, or None where it is not a number (an environment's field)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def waited_beyond_bound(j: Judged) -> bool:
    """The timing's sandboxes (or the host, where unknown) waited for a CPU beyond the bound
    at which the engine marks a timing contended."""
    wait = as_float(j.environment.get("timing_cpu_pressure"))
    return wait is not None and wait > CONTENDED_CPU_PRESSURE


def trust_lines(judged: list[Judged]) -> tuple[list[str], int]:
    """Each Submit's speedup, trust and the API's older ``verified`` flag (derived: not
    rejected) beside the CPU wait of its timing (the share read by the contended rule, whose
    it was, and the host's), in submission order; and how many timings that waited beyond the
    rule's bound have the trust verified (should be none)."""
    lines = [f"    {'id':>6} {'verdict':<7} {'speedup':>8} {'trust':<10} {'flag':<5} {'CPU wait':>8} {'of':<10} {'host':>5}  contended"]
    wrong = 0
    for j in sorted(judged, key=lambda j: j.submitted_at):
        if j.mode != "submit":
            continue
        bench = j.benchmark or {}
        trust = str(bench.get("trust", "none"))
        wait, host = (as_float(j.environment.get(k)) for k in ("timing_cpu_pressure", "timing_host_cpu_pressure"))
        marked = str(j.environment.get("timing_contended", "-"))
        flag = ""
        if waited_beyond_bound(j) and trust == "verified":
            wrong += 1
            flag = "  <- waited beyond the bound, shown verified"
        lines.append(
            f"    {j.sub_id:>6} {j.verdict:<7} {j.speedup if j.speedup is not None else float('nan'):>8.3f} {trust:<10} "
            f"{str(bench.get('verified', '-')):<5} "
            f"{'-' if wait is None else f'{wait:.2f}':>8} {str(j.environment.get('timing_pressure_of', '-')):<10} "
            f"{'-' if host is None else f'{host:.2f}':>5}  {marked[:70]}{flag}"
        )  # fmt: skip
    return lines, wrong


def repeated(code: str, times: int, functions: list[str]) -> str:
    """``code`` whose public functions each run ``times`` times per call (same inputs, same
    result returned): correct, and exactly ``times`` times the work of one call."""
    wrap = "\n".join(
        f"{name} = _bench_repeat({name})" for name in functions if re.search(rf"^def {name}\(", code, re.M)
    )
    return (
        f"{code}\n\n"
        "def _bench_repeat(fn):\n"
        "    def wrapped(*args, **kwargs):\n"
        f"        for _ in range({times - 1}):\n"
        "            fn(*args, **kwargs)\n"
        "        return fn(*args, **kwargs)\n"
        "    return wrapped\n\n"
        f"{wrap}\n"
    )


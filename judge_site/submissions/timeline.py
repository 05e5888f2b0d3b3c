"""Where a judging's time went, as the result page draws it: the per-phase seconds of
``environment["phases"]`` (sandbox/host/phases.py and the site's own, services._with_phases) laid
out as one horizontal bar from the worker's pick-up to the saved verdict, in the order the
phases happen, plus a second row for the work done beside them (the baseline's sandbox start,
the progress writes). The queue wait is said in words: minutes in a queue would squeeze every
other phase to nothing. An inline SVG of plain rectangles (no script, no style attribute: the
site's CSP), each phase's colour by its class.
"""

from __future__ import annotations

import math
from typing import Any

WIDTH = 600.0  # the SVG's user units

# In the order they happen, with the words a student reads.
MAIN_PHASES: dict[str, str] = {
    "prepare": "claiming the judging and loading the package",
    "setup": "the grader's set-up",
    "sandbox_start": "starting your sandbox",
    "runner_ready": "the runner's start (Python and torch)",
    "load": "loading your code",
    "tests": "the tests",
    "timing_wait": "waiting for quiet CPUs",
    "benchmark": "the benchmark",
    "shutdown": "shutting the sandboxes down",
    "save": "saving the verdict",
}
# Done beside the main phases (overlapping them), each drawn under the phase it overlaps.
BESIDE_PHASES: dict[str, tuple[str, str]] = {
    "sibling_start": ("starting the baseline's sandbox (beside your tests)", "runner_ready"),
    "progress_writes": ("writing the progress (during the tests)", "tests"),
}
QUEUE = "queue_wait"


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def phase_timeline(environment: Any) -> dict[str, Any] | None:
    """The timeline of a stored result's ``environment``, or None when it has no phases (an
    old result, a malformed value). Keys: ``segments`` (name, label, seconds, percent, x,
    width, cls) of the main bar, ``beside`` (the same, for the second row), ``total_s``,
    ``queue_wait_s`` (None when unknown), ``width``. A phase this page does not know is drawn
    after the known ones, under its own name."""
    phases = environment.get("phases") if isinstance(environment, dict) else None
    if not isinstance(phases, dict):
        return None
    seconds = {str(k): s for k, v in phases.items() if (s := _seconds(v)) is not None}
    order = [name for name in MAIN_PHASES if name in seconds]
    order += [n for n in seconds if n not in MAIN_PHASES and n not in BESIDE_PHASES and n != QUEUE]
    total = sum(seconds[name] for name in order)
    if total <= 0:
        return None
    segments: list[dict[str, Any]] = []
    starts: dict[str, float] = {}
    x = 0.0
    for name in order:
        width = WIDTH * seconds[name] / total
        starts[name] = x
        segments.append(_segment(name, MAIN_PHASES.get(name, name), seconds[name], total, x, width))
        x += width
    beside = []
    for name, (label, under) in BESIDE_PHASES.items():
        if name in seconds:
            start = starts.get(under, 0.0)
            width = min(WIDTH * seconds[name] / total, WIDTH - start)
            beside.append(_segment(name, label, seconds[name], total, start, width))
    return {
        "segments": segments,
        "beside": beside,
        "total_s": total,
        "queue_wait_s": seconds.get(QUEUE),
        "width": WIDTH,
    }


def _segment(
    name: str, label: str, seconds: float, total: float, x: float, width: float
) -> dict[str, Any]:
    known = name in MAIN_PHASES or name in BESIDE_PHASES
    return {
        "name": name,
        "label": label,
        "seconds": seconds,
        "percent": round(100 * seconds / total, 1),
        "x": round(x, 2),
        "width": round(width, 2),
        "cls": f"ph-{name}" if known else "ph-other",
    }

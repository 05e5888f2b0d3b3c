"""The result page's view of a benchmark against the machine: one row per shape (times,
speedup, % of the speed of light) and a small roofline picture, drawn here as coordinates for
an inline SVG (no chart library, nothing fetched by the browser).

Roofline: arithmetic intensity (flops per byte moved, from the shape's cost model) across,
achieved rate (the model's flops over the median time) up, both on log scales; the machine's
roofs from ``environment.peak``: the memory roof (rate = bandwidth x intensity; the sustained
rate solid, the best in-cache rate dashed when it is higher) and the compute roof (flat). A
shape whose model counts no flops (a gather) has no place on it and is named below it.

A page view evaluates no cost expression: the grader stores each shape's ``bytes`` and ``flops``
with the result (sandbox/bench, ``shape_entry``). A result stored before it did has its figures
from the problem's cost tables, parsed once per process and table (sandbox/grader/manifest.py,
``shape_figures``).
"""

from __future__ import annotations

import math
from typing import Any

from sandbox.grader.manifest import shape_figures

WIDTH, HEIGHT = 440, 250
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 12, 38  # the plot's margins, px


def shape_rows(bench: dict[str, Any] | None) -> list[dict[str, Any]]:
    """``benchmark.shapes`` as table rows: percent of the speed of light added."""
    rows = []
    for shape in (bench or {}).get("shapes") or []:
        if not isinstance(shape, dict):
            continue
        fraction = shape.get("sol_fraction")
        rows.append(
            {
                **shape,
                "sol_percent": 100 * fraction if isinstance(fraction, int | float) else None,
            }
        )
    return rows


def _stored(shape: dict[str, Any]) -> tuple[float, float] | None:
    """The (bytes, flops) the grader stored with the shape's result, when it did."""
    moved, flops = shape.get("bytes"), shape.get("flops")
    if isinstance(moved, bool) or isinstance(flops, bool):
        return None
    if isinstance(moved, int | float) and isinstance(flops, int | float) and moved > 0:
        return float(moved), float(flops)
    return None


def roofline(
    bench: dict[str, Any] | None, environment: dict[str, Any] | None, manifest: dict[str, Any]
) -> dict[str, Any] | None:
    """What the template draws: axes, roofs and points in SVG coordinates, or None when the
    result has no shapes, no peak or no shape with flops."""
    peak = (environment or {}).get("peak")
    if not bench or not isinstance(peak, dict):
        return None
    bandwidth, gflops = peak.get("memory_gbps"), peak.get("gflops")
    if not (isinstance(bandwidth, int | float) and isinstance(gflops, int | float)):
        return None
    if bandwidth <= 0 or gflops <= 0:
        return None
    curve = [p[1] for p in peak.get("memory_curve") or [] if isinstance(p, list | tuple) and len(p) == 2]
    cache_bandwidth = max([float(c) for c in curve if isinstance(c, int | float)] + [bandwidth])
    rows = shape_rows(bench)
    tables = shape_figures(manifest) if any(_stored(shape) is None for shape in rows) else {}
    points, flat = [], []
    for shape in rows:
        figures = _stored(shape) or tables.get(str(shape.get("name")))
        if figures is None:
            continue
        moved, flops = figures
        if moved <= 0:  # not a model the package check passes
            continue
        if flops <= 0:
            flat.append(str(shape["name"]))
            continue
        for who, key in (("yours", "submission_ms"), ("baseline", "baseline_ms")):
            ms = shape.get(key)
            if isinstance(ms, int | float) and ms > 0:
                points.append((who, str(shape["name"]), flops / moved, flops / (ms * 1e6)))
    if not points:
        return {"flat": flat} if flat else None
    ridge = gflops / bandwidth
    x_lo = min([p[2] for p in points] + [gflops / cache_bandwidth]) / 4
    x_hi = max([p[2] for p in points] + [gflops / cache_bandwidth]) * 4
    y_lo = min(p[3] for p in points) / 4
    y_hi = gflops * 2

    def sx(x: float) -> float:
        span = math.log10(x_hi) - math.log10(x_lo)
        return round(LEFT + (WIDTH - LEFT - RIGHT) * (math.log10(x) - math.log10(x_lo)) / span, 1)

    def sy(y: float) -> float:
        span = math.log10(y_hi) - math.log10(y_lo)
        return round(HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (math.log10(y) - math.log10(y_lo)) / span, 1)

    def roof(gbps: float) -> dict[str, float | str]:
        """The memory roof from the left edge (or where it enters the plot) to the ridge; its
        label sits a third of the way along, above the line."""
        x_start = max(x_lo, y_lo / gbps)
        x1, y1, x2, y2 = sx(x_start), sy(gbps * x_start), sx(gflops / gbps), sy(gflops)
        return {"x1": x1, "y1": y1, "x2": x2, "y2": y2,
                "tx": round(x1 + (x2 - x1) / 3, 1), "ty": round(y1 + (y2 - y1) / 3 - 6, 1),
                "anchor": "start"}

    roofs = [{**roof(bandwidth), "cls": "roof", "label": f"{bandwidth:.0f} GB/s"}]
    if cache_bandwidth > 1.2 * bandwidth:
        roofs.append({**roof(cache_bandwidth), "cls": "roof cache", "label": f"{cache_bandwidth:.0f} GB/s in cache"})
    roofs.append(
        {"x1": sx(min(ridge, gflops / cache_bandwidth)), "y1": sy(gflops), "x2": sx(x_hi), "y2": sy(gflops),
         "tx": sx(x_hi) - 4, "ty": sy(gflops) - 4, "anchor": "end",
         "cls": "roof", "label": f"{gflops:.0f} GFLOP/s"}
    )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "plot": {"x": LEFT, "y": TOP, "w": WIDTH - LEFT - RIGHT, "h": HEIGHT - TOP - BOTTOM},
        "roofs": roofs,
        "points": [
            {"cls": who, "label": f"{who}: {name}, {rate:.1f} GFLOP/s at {x:.2f} flop/byte",
             "x": sx(x), "y": sy(rate)}
            for who, name, x, rate in points
        ],
        "x_axis": "arithmetic intensity (flop/byte, log)",
        "y_axis": "GFLOP/s (log)",
        "flat": flat,
    }

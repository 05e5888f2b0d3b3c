"""bench_judging's plots: latency histograms and throughput against concurrency, as small
self-contained SVG files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sandbox.tools.bench_judging.figures import pct


def svg_histogram(values_s: list[float], title: str, path: Path) -> None:
    """A latency histogram (seconds) as a small self-contained SVG."""
    width, height, pad = 560, 300, 48
    if not values_s:
        return
    hi = max(values_s) * 1.05 or 1.0
    bins = 24
    counts = [0] * bins
    for v in values_s:
        counts[min(bins - 1, int(v / hi * bins))] += 1
    top = max(counts)
    bar_w = (width - 2 * pad) / bins
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>']  # fmt: skip
    for i, c in enumerate(counts):
        h = (height - 2 * pad) * c / top
        x = pad + i * bar_w
        out.append(f'<rect x="{x:.1f}" y="{height - pad - h:.1f}" width="{bar_w - 1:.1f}" height="{h:.1f}" fill="#4a78b5"/>')
    out.append(f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>')
    for k in range(5):
        v = hi * k / 4
        x = pad + (width - 2 * pad) * k / 4
        out.append(f'<text x="{x:.1f}" y="{height - pad + 14}" text-anchor="middle">{v:.2f}</text>')
    out.append(f'<text x="{width / 2}" y="{height - 10}" text-anchor="middle">submit -&gt; verdict (s)</text>')
    out.append(f'<text x="12" y="{pad - 8}">count (max {top})</text>')
    for q, colour in ((0.5, "#c0392b"), (0.95, "#e67e22")):
        x = pad + (width - 2 * pad) * pct(values_s, q) / hi
        out.append(f'<line x1="{x:.1f}" y1="{pad}" x2="{x:.1f}" y2="{height - pad}" stroke="{colour}" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x + 3:.1f}" y="{pad + 10}" fill="{colour}">p{int(q * 100)} {pct(values_s, q):.2f}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def svg_throughput(points: list[tuple[int, float]], title: str, path: Path) -> None:
    """Judgings/min against the number of clients, with the 60/min target line."""
    width, height, pad = 560, 300, 48
    if not points:
        return
    xmax = max(c for c, _ in points)
    ymax = max(max(t for _, t in points), 60.0) * 1.15
    def xy(c: float, t: float) -> tuple[float, float]:
        return (pad + (width - 2 * pad) * (math.log2(c) / max(1.0, math.log2(xmax))),
                height - pad - (height - 2 * pad) * t / ymax)  # fmt: skip
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>',
           f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>',
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>']  # fmt: skip
    _, y60 = xy(1, 60.0)
    out.append(f'<line x1="{pad}" y1="{y60:.1f}" x2="{width - pad}" y2="{y60:.1f}" stroke="#c0392b" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{width - pad}" y="{y60 - 4:.1f}" text-anchor="end" fill="#c0392b">target 60/min</text>')
    coords = [xy(c, t) for c, t in sorted(points)]
    out.append('<polyline fill="none" stroke="#4a78b5" stroke-width="2" points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in coords) + '"/>')
    for (c, t), (x, y) in zip(sorted(points), coords, strict=True):
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#4a78b5"/>')
        out.append(f'<text x="{x:.1f}" y="{y - 8:.1f}" text-anchor="middle">{t:.0f}</text>')
        out.append(f'<text x="{x:.1f}" y="{height - pad + 14}" text-anchor="middle">{c}</text>')
    for k in range(5):
        v = ymax * k / 4
        _, y = xy(1, v)
        out.append(f'<text x="{pad - 6}" y="{y + 4:.1f}" text-anchor="end">{v:.0f}</text>')
    out.append(f'<text x="{width / 2}" y="{height - 10}" text-anchor="middle">clients (Runs of problem 48)</text>')
    out.append(f'<text x="12" y="{pad - 8}">judgings / min</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def write_plots(report: dict[str, Any], svg_dir: Path, burst: int, clients: int) -> None:
    """The latency histograms and throughput against concurrency (the sweep's points, else
    the single client's and the burst's)."""
    svg_dir.mkdir(parents=True, exist_ok=True)
    if report.get("latency_values"):
        svg_histogram(report["latency_values"], "Run latency, one client (problem 48)",
                      svg_dir / "run-latency.svg")  # fmt: skip
    if report.get("burst_values"):
        svg_histogram(report["burst_values"], f"Run latency in a burst of {burst} from {clients} clients",
                      svg_dir / "burst-latency.svg")  # fmt: skip
    points = report.get("sweep") or report.get("throughput")
    if points:
        svg_throughput([tuple(p) for p in points], "Throughput against concurrency",
                       svg_dir / "throughput.svg")  # fmt: skip


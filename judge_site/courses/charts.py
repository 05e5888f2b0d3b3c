"""The progress matrix's two plots, drawn here as inline SVG (no chart library, no script):
the class's problems solved per day (bars, with the running total as a line), and each
problem's verdicts as one stacked bar. Colours come from classes in courses.css."""

from __future__ import annotations

from datetime import date, timedelta

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from judge_site.catalog.models import Problem
from judge_site.courses.grading import VERDICT_ORDER

MAX_DAYS = 120


def _n(value: float) -> str:
    """A coordinate: format_html escapes its arguments to text before formatting them."""
    return f"{value:.1f}"


def solved_per_day_svg(days: list[tuple[date, int]], width: int = 640, height: int = 180) -> str:
    if not days:
        return ""
    first, last = days[0][0], days[-1][0]
    if (last - first).days >= MAX_DAYS:
        first = last - timedelta(days=MAX_DAYS - 1)
    counts = dict(days)
    before = sum(n for d, n in days if d < first)
    span = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    daily = [counts.get(d, 0) for d in span]
    running, total = [], before
    for n in daily:
        total += n
        running.append(total)
    left, bottom, top = 36, height - 24, 12
    plot_w, plot_h = width - left - 8, bottom - top
    step = plot_w / len(span)
    bar_w = min(max(step - 2, 1), 28)  # one day alone is a bar, not a wall
    peak_bar = max(daily) or 1
    peak_line = max(running) or 1
    parts = [
        format_html(
            '<svg class="chart solved-per-day" width="{}" height="{}" role="img" '
            'aria-label="problems solved per day, {} in all">',
            width, height, running[-1],
        ),
        format_html('<line class="axis" x1="{}" y1="{}" x2="{}" y2="{}"></line>',
                    left, bottom, width - 8, bottom),
        format_html('<text class="tick" x="{}" y="{}">{}</text>', 2, top + 8, peak_line),
        format_html('<text class="tick" x="{}" y="{}">0</text>', 2, bottom),
    ]
    for i, (day, n) in enumerate(zip(span, daily, strict=True)):
        if not n:
            continue
        h = plot_h * n / peak_bar * 0.9
        parts.append(format_html(
            '<rect class="bar" x="{}" y="{}" width="{}" height="{}">'
            "<title>{}: {} solved</title></rect>",
            _n(left + i * step + (step - bar_w) / 2), _n(bottom - h), _n(bar_w), _n(h),
            day.isoformat(), n,
        ))
    points = " ".join(
        f"{left + (i + 0.5) * step:.1f},{bottom - plot_h * r / peak_line:.1f}"
        for i, r in enumerate(running)
    )
    parts.append(format_html('<polyline class="running" points="{}"></polyline>', points))
    parts.append(format_html('<text class="tick" x="{}" y="{}">{}</text>',
                             left, height - 6, span[0].isoformat()))
    if len(span) > 1:
        parts.append(format_html('<text class="tick end" x="{}" y="{}">{}</text>',
                                 width - 8, height - 6, span[-1].isoformat()))
    parts.append(mark_safe("</svg>"))
    return SafeString("".join(parts))


def verdicts_svg(
    problems: list[Problem], counts: dict[int, dict[str, int]], width: int = 640
) -> str:
    rows = [(p, counts.get(p.pk, {})) for p in problems]
    if not any(sum(c.values()) for _, c in rows):
        return ""
    label_w, row_h = 170, 22
    height = row_h * len(rows) + 26
    peak = max(sum(c.values()) for _, c in rows) or 1
    plot_w = width - label_w - 50
    parts = [format_html(
        '<svg class="chart verdicts" width="{}" height="{}" role="img" '
        'aria-label="verdicts per problem">', width, height,
    )]
    for i, (problem, verdicts) in enumerate(rows):
        y = i * row_h + 4
        parts.append(format_html('<text class="label" x="0" y="{}">{}. {}</text>',
                                 y + 14, problem.number, problem.slug[:22]))
        x = float(label_w)
        for verdict in VERDICT_ORDER:
            n = verdicts.get(verdict, 0)
            if not n:
                continue
            w = plot_w * n / peak
            parts.append(format_html(
                '<rect class="v-{}" x="{}" y="{}" width="{}" height="16">'
                "<title>{} {}: {}</title></rect>",
                verdict, _n(x), y, _n(w), problem.number, verdict, n,
            ))
            x += w
        parts.append(format_html('<text class="tick" x="{}" y="{}">{}</text>',
                                 _n(x + 4), y + 13, sum(verdicts.values())))
    legend_y = len(rows) * row_h + 20
    for j, verdict in enumerate(VERDICT_ORDER):
        parts.append(format_html(
            '<rect class="v-{}" x="{}" y="{}" width="10" height="10"></rect>'
            '<text class="tick" x="{}" y="{}">{}</text>',
            verdict, label_w + j * 60, legend_y - 9, label_w + j * 60 + 14, legend_y,
            escape(verdict),
        ))
    parts.append(mark_safe("</svg>"))
    return SafeString("".join(parts))

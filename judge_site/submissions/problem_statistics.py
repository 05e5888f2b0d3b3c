"""A problem's statistics for its page: acceptance, ``fast_p`` and the spread of accepted
speedups, over the users who submitted (Submit mode, judged).

``fast_p`` (KernelBench's measure, per user here): the share of users who submitted whose
best accepted speedup is above ``p``, where the grader believed that timing (a best result
whose timing was rejected counts as no speedup). The histogram counts each user's best once.
Read from the aggregates kept with every verdict (``BestResult``, judge_site/submissions/
aggregates.py): one row per user of the problem, so it is cached under the problem's counters
(``ProblemStats``: its board generation, judged, accepted, solvers and tried), which every
change of those rows moves; a page view reads one counter row, whatever the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from judge_site.catalog.models import Problem
from judge_site.core.prepared import UNREAD
from judge_site.submissions.leaderboards import cached
from judge_site.submissions.models import BestResult, ProblemStats

FAST_P = (1.0, 1.5, 2.0)
# Histogram bins of speedups: [lower, upper) with a label; the last is open.
BINS: tuple[tuple[float, float, str], ...] = (
    (0.0, 0.5, "< 0.5×"),
    (0.5, 1.0, "0.5-1×"),
    (1.0, 1.5, "1-1.5×"),
    (1.5, 2.0, "1.5-2×"),
    (2.0, 4.0, "2-4×"),
    (4.0, float("inf"), "≥ 4×"),
)
BAR_MAX_PX = 120


@dataclass(frozen=True)
class ProblemStatistics:
    submitters: int
    accepted: int  # users with an accepted Submit
    fast_p: dict[str, float] = field(default_factory=dict)  # "1.0" -> share of submitters
    histogram: list[dict[str, object]] = field(default_factory=list)  # label, count, px

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.submitters if self.submitters else None




def problem_counters(problem: Problem) -> tuple[int, ...] | None:
    """The problem's counters (generation, judged, accepted, solvers, tried), None before any."""
    return (
        ProblemStats.objects.filter(pk=problem.pk)
        .values_list("generation", "judged", "accepted", "solvers", "tried")
        .first()
    )


def statistics_key(problem: Problem, counters: Sequence[int] | None) -> str:
    """The cache key of the statistics: the problem and its counters (see the module doc)."""
    return "stats:problem:{}:{}".format(problem.pk, ":".join(map(str, counters or ())))


def problem_statistics(problem: Problem, counters: Any = UNREAD) -> ProblemStatistics:
    """The statistics of ``problem``: cached under its counters (see the module doc), read
    here unless the caller read them already (``problem_counters``' tuple or None)."""
    if counters is UNREAD:
        counters = problem_counters(problem)
    return cached(statistics_key(problem, counters), lambda: compute_statistics(problem))


def statistics_html(problem: Problem, counters: Sequence[int] | None) -> SafeString:
    """The problem page's statistics section, rendered: cached under the same counters, so a
    view renders nothing while they stay the same (the statistics are only read on a miss)."""
    html = cached(
        statistics_key(problem, counters) + ":html",
        lambda: render_to_string(
            "catalog/_problem_stats.html", {"stats": problem_statistics(problem, counters)}
        ),
    )
    return mark_safe(html)  # noqa: S308  (our template's output, autoescaped when rendered)


def compute_statistics(problem: Problem) -> ProblemStatistics:
    """The statistics of ``problem`` from its users' best results (one query)."""
    rows = BestResult.objects.filter(problem=problem, judged__gt=0).values_list(
        "accepted", "best_speedup", "best_trust"
    )
    submitters = accepted = 0
    best: list[float] = []
    for solved, speedup, trust in rows.iterator():
        submitters += 1
        if solved:
            accepted += 1
            if isinstance(speedup, int | float) and speedup > 0 and trust != "rejected":
                best.append(float(speedup))
    fast = {
        f"{p:.1f}": (sum(1 for s in best if s > p) / submitters if submitters else 0.0)
        for p in FAST_P
    }
    counts = [sum(1 for s in best if lo <= s < hi) for lo, hi, _ in BINS]
    top = max(counts, default=0) or 1
    histogram = [
        {"label": label, "count": count, "px": round(BAR_MAX_PX * count / top), "y": 22 * i}
        for i, ((_, _, label), count) in enumerate(zip(BINS, counts, strict=True))
    ]
    return ProblemStatistics(submitters, accepted, fast, histogram if best else [])


"""The leaderboards: a problem's (best accepted speedup per user) and the overall one (problems
solved), a page at a time from the aggregates (BestResult, UserStats), cached by generation."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.core.cache import cache
from django.db.models import BigIntegerField, F, Func, QuerySet

from judge_site.catalog.models import Problem
from judge_site.core.prepared import UNREAD, PreparedQuery
from judge_site.submissions.models import BestResult, ProblemStats, UserStats
from sandbox.grader.contracts import Trust

T = TypeVar("T")
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BoardRow:
    rank: int
    username: str
    speedup: float | None
    submission_id: int
    at: datetime
    verified: bool = True  # the grader trusted the timing (see BenchmarkResult.verified)
    trust: str = "verified"  # sandbox.grader.contracts.Trust: verified | charged | contended | rejected
    geomean: float | None = None  # geometric mean of the per-shape speedups


@dataclass(frozen=True)
class SolvedRow:
    rank: int
    username: str
    solved: int


@dataclass(frozen=True)
class BoardPage:
    """One page of a leaderboard: rows, its number (1-based), the number of pages, and the
    cache key of its rows (the board's generation and the page)."""

    rows: list[Any]
    number: int
    num_pages: int
    total: int
    key: str = ""

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages


BOARD_PAGE_SIZE = 50
BOARD_CACHE_S = 300  # a safety net: entries are keyed by the boards' generations anyway


def _page_number(page: Any, total: int, size: int) -> tuple[int, int]:
    """(the page to show, the number of pages): bad or out-of-range numbers clamp, as
    Django's Paginator.get_page does."""
    num_pages = max(1, -(-total // size))
    try:
        number = int(page)
    except (TypeError, ValueError):
        number = 1
    return min(max(number, 1), num_pages), num_pages


def cached(key: str, compute: Callable[[], T]) -> T:
    """``compute()``, kept in the cache under ``key``; a cache that is down costs only speed."""
    try:
        hit = cache.get(key)
    except Exception:  # noqa: BLE001 - Redis away: serve from the database
        logger.warning("cache unavailable: %s", key, exc_info=True)
        return compute()
    if hit is not None:
        return hit
    value = compute()
    try:
        cache.set(key, value, BOARD_CACHE_S)
    except Exception:  # noqa: BLE001
        logger.warning("cache unavailable: %s", key, exc_info=True)
    return value


def _board(problem: Problem) -> QuerySet[BestResult]:
    """The rows of a problem's board: users with an accepted Submit whose best is not a
    rejected timing (a rejected timing ranks nowhere: pair_state.pair_state keeps such a row only
    while the user has no believed one; its stored speedup, if an old result had one, is
    never read)."""
    return BestResult.objects.filter(problem=problem, accepted__gt=0).exclude(
        best_trust=Trust.REJECTED
    )


def leaderboard_problem_page(
    problem: Problem, page: Any = 1, counters: tuple[int, int] | None | Any = UNREAD
) -> BoardPage:
    """Best accepted speedup per user (ties: earlier submission first), one page, from the
    BestResult rows; cached until the problem's board changes (ProblemStats.generation).
    A user whose accepted Submits all have rejected timings is not on it (``_board``).
    ``counters``: (solvers, generation) when the caller read them (None: no ProblemStats)."""
    if counters is UNREAD:
        counters = (
            ProblemStats.objects.filter(pk=problem.pk)
            .values_list("solvers", "generation")
            .first()
        )
    solvers, generation = counters or (0, 0)
    # The solvers with a rejected best are not on the board: counted (once a generation) only
    # when there are any solvers at all.
    total = (
        cached(f"board:problem:{problem.pk}:{generation}:count", _board(problem).count)
        if solvers
        else 0
    )
    number, num_pages = _page_number(page, total, BOARD_PAGE_SIZE)
    offset = (number - 1) * BOARD_PAGE_SIZE

    def rows() -> list[BoardRow]:
        best = (
            _board(problem)
            .order_by(F("best_speedup").desc(nulls_last=True), "best_at", "user_id")
            .values_list("user__username", "best_speedup", "best_submission_id", "best_at",
                         "best_trust", "best_geomean")[offset:offset + BOARD_PAGE_SIZE]
        )
        return [
            BoardRow(offset + i + 1, name, speedup, sid or 0, at, True, trust or "verified",
                     geomean)
            for i, (name, speedup, sid, at, trust, geomean) in enumerate(best)
        ]

    key = f"board:problem:{problem.pk}:{generation}:{number}"
    return BoardPage(cached(key, rows), number, num_pages, total, key)






# The sum of the problems' generations, compiled once (a plain SUM: an aggregate in
# values_list would GROUP BY the rows).
_GENERATIONS = PreparedQuery(
    lambda: ProblemStats.objects.order_by().values_list(
        Func(F("generation"), function="SUM", output_field=BigIntegerField())
    )
)


def leaderboard_overall_page(page: Any = 1) -> BoardPage:
    """Users by number of problems accepted (Submit mode), ties by username, one page, from
    UserStats; cached until a solved count changes (the sum of the problems' generations)."""
    generation = (_GENERATIONS.first() or (None,))[0] or 0

    def count() -> int:
        return UserStats.objects.filter(solved__gt=0).count()

    total = cached(f"board:overall:{generation}:count", count)
    number, num_pages = _page_number(page, total, BOARD_PAGE_SIZE)
    offset = (number - 1) * BOARD_PAGE_SIZE

    def rows() -> list[SolvedRow]:
        best = (
            UserStats.objects.filter(solved__gt=0)
            .order_by("-solved", "user__username")
            .values_list("user__username", "solved")[offset:offset + BOARD_PAGE_SIZE]
        )
        return [SolvedRow(offset + i + 1, name, solved) for i, (name, solved) in enumerate(best)]

    key = f"board:overall:{generation}:{number}"
    return BoardPage(cached(key, rows), number, num_pages, total, key)

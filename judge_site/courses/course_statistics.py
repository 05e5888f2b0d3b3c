"""Course statistics an instructor acts on, per problem: the share of the class that solved it,
fast_p (the share whose best accepted submission is at least p times faster than the baseline,
from the stored benchmark speedup), the public checks that fail most, the median attempts to
the first AC; plus the data of the progress plots and the course leaderboard.

Every query is bounded by the course (its students' Submits to its problems), on the
submissions' (user, problem, -created_at) index.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime

from django.db import connection
from django.db.models import Count, F, OuterRef, Subquery

from judge_site.catalog.models import Problem
from judge_site.courses.grading import Gradebook, counted_submissions
from judge_site.courses.models import Course, Role
from judge_site.submissions.models import VerdictChoice

FAST_P = (1.0, 1.5, 2.0)
TOP_CHECKS = 3


@dataclass(frozen=True)
class ProblemStats:
    problem: Problem
    students: int
    solved: int
    fast: dict[float, int]  # p -> students whose best accepted speedup is >= p
    median_attempts: float | None
    failing: list[tuple[str, int, int]]  # (public test name, failed judgings, students)

    @property
    def solved_share(self) -> float | None:
        return self.solved / self.students if self.students else None

    def fast_share(self, p: float) -> float | None:
        return self.fast[p] / self.students if self.students else None

    @property
    def fast_shares(self) -> list[tuple[float, float | None]]:
        return [(p, self.fast_share(p)) for p in FAST_P]


def attempts_to_ac(course: Course, problem_ids: list[int]) -> dict[tuple[int, int], int]:
    """(user id, problem id) -> judged Submits up to and including the first AC."""
    if not problem_ids:
        return {}
    first_ac = (
        counted_submissions(course, problem_ids)
        .filter(user_id=OuterRef("user_id"), problem_id=OuterRef("problem_id"),
                verdict=VerdictChoice.AC)
        .order_by("created_at")
        .values("created_at")[:1]
    )
    rows = (
        counted_submissions(course, problem_ids)
        .annotate(first=Subquery(first_ac))
        .filter(first__isnull=False, created_at__lte=F("first"))
        .order_by()
        .values("user_id", "problem_id")
        .annotate(n=Count("id"))
    )
    return {(r["user_id"], r["problem_id"]): r["n"] for r in rows}


# Public test names only: a hidden test's name never leaves the grader's side of the pages.
# The submissions are counted_submissions' (made at or after the student joined the course).
_FAILING_SQL = """
SELECT s.problem_id, t.value->>'name', COUNT(*), COUNT(DISTINCT s.user_id)
FROM submissions_submission s
CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(s.tests) = 'array' THEN s.tests ELSE '[]'::jsonb END) AS t(value)
WHERE s.problem_id = ANY(%s)
  AND EXISTS (SELECT 1 FROM courses_membership m WHERE m.course_id = %s AND m.role = %s
              AND m.user_id = s.user_id AND m.joined_at <= s.created_at)
  AND s.mode = 'submit' AND s.status = 'done' AND s.verdict NOT IN ('AC', 'IE', '')
  AND t.value->>'public' = 'true'
  AND COALESCE(t.value->>'verdict', '') NOT IN ('AC', '')
GROUP BY 1, 2
ORDER BY 3 DESC, 2
"""


def failing_checks(course: Course, problem_ids: list[int]) -> dict[int, list[tuple[str, int, int]]]:
    """problem id -> the public checks that failed most: (name, failed judgings, students)."""
    if not problem_ids:
        return {}
    out: dict[int, list[tuple[str, int, int]]] = {}
    with connection.cursor() as cursor:
        cursor.execute(_FAILING_SQL, [problem_ids, course.pk, Role.STUDENT])
        for problem_id, name, count, students in cursor.fetchall():
            shown = out.setdefault(problem_id, [])
            if len(shown) < TOP_CHECKS and name:
                shown.append((str(name), int(count), int(students)))
    return out


def course_statistics(book: Gradebook) -> list[ProblemStats]:
    problems = book.problems
    ids = [p.pk for p in problems]
    n = len(book.rows)
    members = {row.membership.user_id for row in book.rows}
    to_ac = attempts_to_ac(book.course, ids)
    failing = failing_checks(book.course, ids)
    out = []
    for problem in problems:
        mine = [t for (uid, pid), t in book.tallies.items() if pid == problem.pk and uid in members]
        solved = [t for t in mine if t.first_ac is not None]
        fast = {
            p: sum(1 for t in solved if t.best_speedup is not None and t.best_speedup >= p)
            for p in FAST_P
        }
        counts = [c for (uid, pid), c in to_ac.items() if pid == problem.pk and uid in members]
        out.append(
            ProblemStats(
                problem, n, len(solved), fast,
                statistics.median(counts) if counts else None,
                failing.get(problem.pk, []),
            )
        )
    return out


def solved_per_day(book: Gradebook) -> list[tuple[date, int]]:
    """(UTC day, problems first accepted that day across the class), oldest first."""
    days: Counter[date] = Counter()
    members = {row.membership.user_id for row in book.rows}
    for (uid, _), tally in book.tallies.items():
        if uid in members and tally.first_ac is not None:
            days[tally.first_ac.date()] += 1
    return sorted(days.items())


def verdicts_per_problem(book: Gradebook) -> dict[int, dict[str, int]]:
    """problem id -> verdict -> judged Submits of the class."""
    ids = [p.pk for p in book.problems]
    out: dict[int, dict[str, int]] = {}
    rows = (
        counted_submissions(book.course, ids)
        .order_by()
        .values("problem_id", "verdict")
        .annotate(n=Count("id"))
    )
    for r in rows:
        out.setdefault(r["problem_id"], {})[r["verdict"]] = r["n"]
    return out


@dataclass(frozen=True)
class CourseBoardRow:
    rank: int
    username: str
    speedup: float | None
    first_ac: datetime


def course_leaderboard(book: Gradebook, problem: Problem) -> list[CourseBoardRow]:
    """The class on one problem: best accepted speedup, ties by the earlier first AC."""
    solved = []
    for row in book.rows:
        tally = book.tallies.get((row.membership.user_id, problem.pk))
        if tally is not None and tally.first_ac is not None:
            solved.append((row.user.get_username(), tally))
    solved.sort(key=lambda item: (-(item[1].best_speedup or 0.0), item[1].first_ac))
    return [
        CourseBoardRow(i + 1, name, t.best_speedup, t.first_ac)  # type: ignore[arg-type]
        for i, (name, t) in enumerate(solved)
    ]

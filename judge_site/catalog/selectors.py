"""Reads on the catalog: the problem list with a user's marks and acceptance rates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from judge_site.catalog.models import Difficulty, Draft, Problem
from judge_site.core import gates, page_parts
from judge_site.core.prepared import PreparedQuery

STATUS_FILTERS = ("solved", "tried", "todo")


@dataclass(frozen=True)
class ListedProblem:
    """What the problem list shows of a problem, with its counters (Submit judgings)."""

    pk: int
    number: int
    title: str
    published: bool
    difficulty: str
    chapter: str
    tags: list[str]
    accepted: int
    judged: int


@dataclass(frozen=True)
class ProblemRow:
    problem: ListedProblem
    solved: bool
    tried: bool
    accepted: int
    judged: int

    @property
    def acceptance(self) -> float | None:
        """Accepted Submit judgings over finished Submit judgings, or None before any."""
        return self.accepted / self.judged if self.judged else None


def visible_problems(staff: bool) -> QuerySet[Problem]:
    """The problems staff (every one) or anyone else (the published ones) may see."""
    return Problem.objects.all() if staff else Problem.objects.filter(published=True)


def problem_visible_to(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Problem]:
    return visible_problems(bool(getattr(user, "is_staff", False)))


def problem_readable(user: AbstractBaseUser | AnonymousUser, problem: Problem) -> bool:
    """Whether ``user`` may read ``problem``: a published one, staff, or an unpublished one
    that a later app opens to them (an exam's, judge_site/core/gates.py). Never listed."""
    return (problem.published or bool(getattr(user, "is_staff", False))
            or gates.reads_unpublished(user, problem))


def problem_get(user: AbstractBaseUser | AnonymousUser, number: int) -> Problem | None:
    found = problem_visible_to(user).filter(number=number).first()
    if found is None and getattr(user, "is_authenticated", False):
        hidden = Problem.objects.filter(number=number, published=False).first()
        if hidden is not None and problem_readable(user, hidden):
            return hidden
    return found


# The problem page's reads, compiled once (judge_site/core/prepared.py): the problem with its
# counters (ProblemStats, for the statistics) and the admin's hint overrides (HintSettings),
# in one query; then the viewer's latest submission and draft.
_PROBLEM_FIELDS = tuple(f.attname for f in Problem._meta.concrete_fields)
_PAGE_EXTRAS = ("stats__generation", "stats__judged", "stats__accepted", "stats__solvers",
                "stats__tried", "hint_settings__enabled", "hint_settings__after",
                "hint_settings__cooldown_s")


def _problem_page_qs(staff: bool, number: int) -> QuerySet[Any]:
    return visible_problems(staff).filter(number=number).values_list(
        *_PROBLEM_FIELDS, *_PAGE_EXTRAS
    )[:1]


_PAGE = PreparedQuery(_problem_page_qs, number=int)
_DRAFT = PreparedQuery(
    lambda user_id, problem_id: Draft.objects.filter(user_id=user_id, problem_id=problem_id)
    .order_by("pk")
    .values_list("code", flat=True)[:1],
    user_id=int,
    problem_id=int,
)


@dataclass(frozen=True)
class ProblemPage:
    """What the problem page reads in its first query: the problem, its counters
    (``ProblemStats``: generation, judged, accepted, solvers, tried; None without a row) and
    the admin's hint overrides (``HintSettings``: enabled, after, cooldown_s; None without)."""

    problem: Problem
    counters: tuple[int, int, int, int, int] | None
    hint_override: tuple[bool, int | None, float | None] | None


def problem_page(user: AbstractBaseUser | AnonymousUser, number: int) -> ProblemPage | None:
    """The problem ``number`` as ``problem_get`` finds it, with its counters and hint
    overrides (one query; a second only where a signed-in user asks for an unpublished one)."""
    staff = bool(getattr(user, "is_staff", False))
    row = _PAGE.first(staff, number=number)
    if row is None and not staff and getattr(user, "is_authenticated", False):
        row = _PAGE.first(True, number=number)  # an exam's unpublished problem, maybe
    if row is None:
        return None
    width = len(_PROBLEM_FIELDS)
    problem = Problem.from_db("default", list(_PROBLEM_FIELDS), list(row[:width]))
    if not problem_readable(user, problem):
        return None
    counters, hints = row[width:width + 5], row[width + 5:]
    return ProblemPage(
        problem,
        counters if counters[0] is not None else None,  # type: ignore[arg-type]
        hints if hints[0] is not None else None,  # type: ignore[arg-type]
    )


# The problem list's read, compiled once (judge_site/core/prepared.py): the visible problems
# with their counters (a handful of rows, whatever the history); the viewer's marks come from
# the submissions app (core/page_parts.py).
_LISTED = PreparedQuery(
    lambda staff: visible_problems(staff)
    .order_by("number")
    .values_list("pk", "number", "title", "published", "difficulty", "chapter", "tags",
                 "stats__accepted", "stats__judged")
)


def problems_listed(user: AbstractBaseUser | AnonymousUser) -> list[ListedProblem]:
    """The problems ``user`` may see, in number order, with their counters (one query)."""
    return [
        ListedProblem(pk, number, title, published, difficulty, chapter, tags or [],
                      accepted or 0, judged or 0)
        for pk, number, title, published, difficulty, chapter, tags, accepted, judged
        in _LISTED.rows(bool(getattr(user, "is_staff", False)))
    ]


def problem_tags(listed: list[ListedProblem]) -> list[str]:
    """Every tag of the listed problems, sorted."""
    tags: set[str] = set()
    for problem in listed:
        tags.update(str(t) for t in problem.tags)
    return sorted(tags)


def problem_list(
    user: AbstractBaseUser | AnonymousUser,
    listed: list[ListedProblem],
    *,
    difficulty: str = "",
    tag: str = "",
    status: str = "",
) -> list[ProblemRow]:
    """The ``listed`` problems (problems_listed) with the user's solved/tried marks and
    acceptance rates (tried: the user has a submission of it, queued ones included).

    ``status`` filters by the user's marks (solved, tried = attempted but not solved, todo).
    """
    # Marks from the submissions' aggregates (core/page_parts.py): a row per problem tried.
    solved: set[int] = set()
    tried: set[int] = set()
    if getattr(user, "is_authenticated", False):
        for pid, accepted in page_parts.progress().marks(user.pk):
            tried.add(pid)
            if accepted:
                solved.add(pid)
    rows = []
    for problem in listed:
        if difficulty in Difficulty.values and problem.difficulty != difficulty:
            continue
        if tag and tag not in problem.tags:
            continue
        row = ProblemRow(
            problem=problem,
            solved=problem.pk in solved,
            tried=problem.pk in tried and problem.pk not in solved,
            accepted=problem.accepted,
            judged=problem.judged,
        )
        if status == "solved" and not row.solved:
            continue
        if status == "tried" and not row.tried:
            continue
        if status == "todo" and (row.solved or row.tried):
            continue
        rows.append(row)
    return rows


def draft_code(user: AbstractBaseUser | AnonymousUser, problem: Problem) -> str | None:
    """The user's draft of ``problem``, or None (anonymous users keep none)."""
    if not user.is_authenticated:
        return None
    return _DRAFT.first(user_id=user.pk, problem_id=problem.pk)


def package_notes(problem: Problem) -> str:
    """The Markdown of ``notes.md`` beside the package's ``statement.md`` (a tensor package or
    an imported practice folder), stripped; '' when there is none or it cannot be read."""
    path = Path(problem.package_dir) / "notes.md"
    try:
        return path.read_text(encoding="utf-8").strip() if path.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return ""


def solution_notes(user: AbstractBaseUser | AnonymousUser, problem: Problem) -> str | None:
    """The solution notes of ``problem`` (its package's non-empty ``notes.md``) for a user with
    an accepted Submit on it; '' when they have none yet, anonymous users included (the page
    says the notes open after an AC); None for a problem without notes.

    The notes never leave this function for a user without an AC on this very problem."""
    notes = package_notes(problem)
    if not notes:
        return None
    if not getattr(user, "is_authenticated", False):
        return ""
    return notes if page_parts.progress().solved(user.pk, problem.pk) else ""

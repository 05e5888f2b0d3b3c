"""Reads on the catalog: the problem list with a user's marks and acceptance rates."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from judge_site.catalog.models import Difficulty, Draft, Problem
from judge_site.submissions.models import BestResult, ProblemStats

STATUS_FILTERS = ("solved", "tried", "todo")


@dataclass(frozen=True)
class ProblemRow:
    problem: Problem
    solved: bool
    tried: bool
    accepted: int
    judged: int

    @property
    def acceptance(self) -> float | None:
        """Accepted Submit judgings over finished Submit judgings, or None before any."""
        return self.accepted / self.judged if self.judged else None


def problem_visible_to(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Problem]:
    if getattr(user, "is_staff", False):
        return Problem.objects.all()
    return Problem.objects.filter(published=True)


def problem_get(user: AbstractBaseUser | AnonymousUser, number: int) -> Problem | None:
    return problem_visible_to(user).filter(number=number).first()


def problem_tags(user: AbstractBaseUser | AnonymousUser) -> list[str]:
    tags: set[str] = set()
    for row in problem_visible_to(user).values_list("tags", flat=True):
        tags.update(str(t) for t in row or [])
    return sorted(tags)


def problem_list(
    user: AbstractBaseUser | AnonymousUser,
    *,
    difficulty: str = "",
    tag: str = "",
    status: str = "",
) -> list[ProblemRow]:
    """Problems in number order with the user's solved/tried marks and acceptance rates
    (tried: the user has a submission of it, queued ones included).

    ``status`` filters by the user's marks (solved, tried = attempted but not solved, todo).
    """
    qs = problem_visible_to(user).defer(
        "statement_md", "starter_code", "manifest", "public_examples", "package_dir"
    )
    if difficulty in Difficulty.values:
        qs = qs.filter(difficulty=difficulty)
    # Counters and marks from the aggregates (judge_site/submissions/stats.py): a handful of
    # rows, whatever the number of submissions.
    counters = {
        pid: (accepted, judged)
        for pid, accepted, judged in ProblemStats.objects.values_list(
            "problem_id", "accepted", "judged"
        )
    }
    solved: set[int] = set()
    tried: set[int] = set()
    if getattr(user, "is_authenticated", False):
        for pid, accepted in BestResult.objects.filter(user_id=user.pk).values_list(
            "problem_id", "accepted"
        ):
            tried.add(pid)
            if accepted:
                solved.add(pid)
    rows = []
    for problem in qs.order_by("number"):
        if tag and tag not in (problem.tags or []):
            continue
        row = ProblemRow(
            problem=problem,
            solved=problem.pk in solved,
            tried=problem.pk in tried and problem.pk not in solved,
            accepted=counters.get(problem.pk, (0, 0))[0],
            judged=counters.get(problem.pk, (0, 0))[1],
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
    return (
        Draft.objects.filter(user_id=user.pk, problem=problem)
        .values_list("code", flat=True)
        .first()
    )


def practice_notes(user: AbstractBaseUser | AnonymousUser, problem: Problem) -> str | None:
    """The solution notes of a practice problem (sandbox/practice.py) for a user with an
    accepted Submit on it; '' when they have none yet (the page says they open after an AC);
    None for a problem without notes."""
    from sandbox import practice

    manifest = problem.manifest or {}
    if not practice.is_practice(manifest) or not practice.settings_of(manifest).get("notes"):
        return None
    if not getattr(user, "is_authenticated", False):
        return ""
    solved = BestResult.objects.filter(user_id=user.pk, problem=problem, accepted__gt=0).exists()
    if not solved:
        return ""
    try:
        return practice.notes_of(problem.package_dir)
    except OSError:
        return ""

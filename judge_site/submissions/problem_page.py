"""The submissions' side of a problem's page and of the problem list, given to the catalog
through judge_site/core/page_parts.py (the catalog imports no app above it): where the problem
is judged, its statistics, the judging a refresh resumes, and the user's marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.core.choices import Mode, Status
from judge_site.core.page_parts import Progress
from judge_site.core.prepared import PreparedQuery
from judge_site.submissions.models import BestResult, Submission
from judge_site.submissions.problem_statistics import statistics_html
from judge_site.submissions.routing import judging_route

RESUME_RECENT_MIN = 10

_LATEST = PreparedQuery(
    lambda user_id, problem_id: Submission.objects.filter(user_id=user_id, problem_id=problem_id)
    .exclude(mode=Mode.SCRATCH)  # the scratchpad shows its own runs
    .order_by("-created_at")
    .values_list("pk", "status", "created_at")[:1],
    user_id=int,
    problem_id=int,
)
# The viewer's marks on the problem list, compiled once (judge_site/core/prepared.py).
_MARKS = PreparedQuery(
    lambda user_id: BestResult.objects.filter(user_id=user_id).values_list(
        "problem_id", "accepted"
    ),
    user_id=int,
)


@dataclass(frozen=True)
class LatestSubmission:
    pk: int
    status: str
    created_at: datetime


def latest_submission(user: AbstractBaseUser | AnonymousUser, problem: Problem) -> LatestSubmission | None:
    """The user's latest Run or Submit of ``problem`` (scratch runs left out), or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    row = _LATEST.first(user_id=user.pk, problem_id=problem.pk)
    return LatestSubmission(*row) if row else None


def problem_page_part(request: Any, problem: Problem, page: Any, gate: Any) -> dict[str, Any]:
    """Where this site judges the problem (a GPU problem on CPU, or not at all), said up front;
    its statistics, except inside an exam window; the judging a refresh resumes (still running,
    or finished a moment ago)."""
    latest = latest_submission(request.user, problem)
    recent = timezone.now() - timedelta(minutes=RESUME_RECENT_MIN)
    resume = latest is not None and (latest.status != Status.DONE or latest.created_at >= recent)
    return {
        "resume": latest if resume else None,
        "judging": judging_route(problem),
        "stats_html": "" if gate else statistics_html(problem, page.counters),
    }


def _marks(user_id: int) -> list[tuple[int, bool]]:
    return [(pid, bool(accepted)) for pid, accepted in _MARKS.rows(user_id=user_id)]


def _solved(user_id: int, problem_id: int) -> bool:
    return BestResult.objects.filter(user_id=user_id, problem_id=problem_id, accepted__gt=0).exists()


PROGRESS = Progress(marks=_marks, solved=_solved)

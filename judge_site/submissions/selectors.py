"""Reads on submissions: visibility, JSON shape, queue position, history and leaderboards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q, QuerySet

from judge_site.catalog.models import Device, Problem
from judge_site.staff.roles import READ_SUBMISSIONS, can
from judge_site.submissions.models import Status, Submission, VerdictChoice

AnyUser: TypeAlias = AbstractBaseUser | AnonymousUser


def reads_all_submissions(user: AnyUser) -> bool:
    """Staff allowed to read every student's code and hidden-test details."""
    return bool(getattr(user, "is_staff", False)) and can(user, READ_SUBMISSIONS)


def submission_visible_to(user: AnyUser) -> QuerySet[Submission]:
    """Submissions a user may open: their own; staff holding staff.read_submissions see
    everyone's (judge_site/staff/roles.py)."""
    qs = Submission.objects.select_related("problem", "user")
    if reads_all_submissions(user):
        return qs
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    return qs.filter(user_id=user.pk)


def submission_get_for(user: AnyUser, submission_id: int) -> Submission | None:
    """The submission when the user may open it: the above, or as an instructor of a course of
    its author's (judge_site/courses/selectors.py)."""
    from judge_site.courses.selectors import submission_for_instructor

    found = submission_visible_to(user).filter(pk=submission_id).first()
    return found or submission_for_instructor(user, submission_id)


def submission_queue_position(submission: Submission) -> int | None:
    """1-based position among the submissions queued for the same workers (the cpu or the gpu
    queue), oldest first; None when not queued."""
    if submission.status != Status.QUEUED:
        return None
    ahead = Submission.objects.filter(status=Status.QUEUED, created_at__lt=submission.created_at)
    # Without GPU workers every judging waits for the CPU workers (services.judging_route).
    if settings.JUDGE_GPU_ENABLED and submission.problem.device == Device.GPU:
        ahead = ahead.filter(problem__device=Device.GPU)
    elif settings.JUDGE_GPU_ENABLED:
        ahead = ahead.exclude(problem__device=Device.GPU)
    return ahead.count() + 1


def submission_to_json(submission: Submission) -> dict[str, Any]:
    """The API's shape: the keys of ``manage.py judge --json`` plus id, problem, mode, status."""
    done = submission.status == Status.DONE
    return {
        "id": submission.pk,
        "problem": submission.problem.number,
        "problem_slug": submission.problem.slug,
        "mode": submission.mode,
        "status": submission.status,
        "verdict": submission.verdict or None,
        "tests": submission.tests or [],
        "benchmark": submission.benchmark if done else None,
        "environment": submission.environment or {},
        "message": submission.message,
        "problem_version": submission.problem_version,
        "queue_position": submission_queue_position(submission),
        "created_at": submission.created_at.isoformat(),
    }


def submission_history(
    user: AnyUser, *, problem: Problem | None = None, verdict: str = "", everyone: bool = False
) -> QuerySet[Submission]:
    """The user's submissions (staff with ``everyone``: all), newest first, filterable."""
    qs = submission_visible_to(user)
    if not (everyone and reads_all_submissions(user)):
        qs = qs.filter(user_id=user.pk)
    if problem is not None:
        qs = qs.filter(problem=problem)
    if verdict in VerdictChoice.values:
        qs = qs.filter(verdict=verdict)
    elif verdict in (Status.QUEUED, Status.RUNNING):
        qs = qs.filter(status=verdict)
    return qs.order_by("-created_at")


@dataclass(frozen=True)
class BoardRow:
    rank: int
    username: str
    speedup: float | None
    submission_id: int
    at: datetime
    verified: bool = True  # the grader trusted the timing (see BenchmarkResult.verified)
    trust: str = "verified"  # sandbox.contracts.Trust: verified | charged | rejected


def leaderboard_problem(problem: Problem, limit: int = 100) -> list[BoardRow]:
    """Best accepted speedup per user (ties: earlier submission first)."""
    accepted = (
        Submission.objects.filter(
            problem=problem, mode="submit", status=Status.DONE, verdict=VerdictChoice.AC
        )
        .select_related("user")
        .order_by("user_id", "created_at")
    )
    best: dict[int, Submission] = {}
    for sub in accepted:
        speed = _speedup(sub)
        held = best.get(sub.user_id)
        if held is None or (speed or 0.0) > (_speedup(held) or 0.0):
            best[sub.user_id] = sub
    ordered = sorted(best.values(), key=lambda s: (-(_speedup(s) or 0.0), s.created_at))
    return [
        BoardRow(
            i + 1,
            s.user.get_username(),
            _speedup(s),
            s.pk,
            s.created_at,
            bool((s.benchmark or {}).get("verified", True)),
            benchmark_trust(s.benchmark),
        )
        for i, s in enumerate(ordered[:limit])
    ]


def benchmark_trust(bench: dict | None) -> str:
    """The benchmark's Trust value; results stored before it existed have only ``verified``."""
    bench = bench or {}
    trust = bench.get("trust")
    if isinstance(trust, str) and trust:
        return trust
    return "verified" if bench.get("verified", True) else "rejected"


def _speedup(sub: Submission) -> float | None:
    bench = sub.benchmark or {}
    value = bench.get("speedup")
    return float(value) if isinstance(value, int | float) else None


@dataclass(frozen=True)
class SolvedRow:
    rank: int
    username: str
    solved: int


def leaderboard_overall(limit: int = 100) -> list[SolvedRow]:
    """Users by number of distinct problems accepted (Submit mode); ties by username."""
    from django.contrib.auth import get_user_model

    rows = (
        get_user_model()
        .objects.annotate(
            solved=Count(
                "submissions__problem",
                filter=Q(
                    submissions__mode="submit",
                    submissions__status=Status.DONE,
                    submissions__verdict=VerdictChoice.AC,
                ),
                distinct=True,
            )
        )
        .filter(solved__gt=0)
        .order_by("-solved", "username")[:limit]
    )
    return [SolvedRow(i + 1, u.get_username(), u.solved) for i, u in enumerate(rows)]

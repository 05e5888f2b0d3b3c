"""Writes on submissions: create (validate + enqueue), judge (claim, progress, finish), reap.

State changes are conditional UPDATEs: ``queued -> running`` hands out a fresh
``attempt_token``; every later write is guarded by that token, so a redelivered or reaped
judging can never overwrite a newer one. Zero rows updated means someone else got there first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from judge_site.catalog.models import Device, Problem
from judge_site.catalog.services import code_text_problem
from judge_site.submissions.models import Mode, Status, Submission, VerdictChoice

logger = logging.getLogger(__name__)

# Infrastructure faults (a broken worker, a Docker hiccup) are retried this many times in all
# before the submission ends as IE.
MAX_ATTEMPTS = 3
RETRY_COUNTDOWN_S = 5
# Another judging of the same user is running: look again after this many seconds.
BUSY_COUNTDOWN_S = 2


class SubmissionError(Exception):
    """Bad input for a submission; ``field`` names what is wrong, the message says why."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.status = status


@dataclass(frozen=True)
class JudgeOutcome:
    """What ``submission_judge`` did, for the task and for tests."""

    action: str  # "judged" | "skipped" | "busy" | "retry" | "failed"
    detail: str = ""


def queue_for(problem: Problem) -> str:
    return "gpu" if problem.device == Device.GPU else "cpu"


def _enqueue(submission_id: int, queue: str, countdown: float = 0) -> None:
    from judge_site.submissions.tasks import judge_submission

    judge_submission.apply_async((submission_id,), queue=queue, countdown=countdown)


def submission_create(
    user: AbstractBaseUser | AnonymousUser,
    problem: Problem,
    code: str,
    mode: str,
    *,
    address: str | None = None,
) -> Submission:
    """Validate and store a queued submission; its judging is enqueued after commit.

    ``address`` is the client's (judge_site.core.requests.client_ip): judgings waiting or
    running are capped per user (JUDGE_MAX_QUEUED_PER_USER) and per address across accounts
    (JUDGE_MAX_QUEUED_PER_ADDRESS). Raises SubmissionError naming the field (user, problem,
    code, mode, rate) when refused; in that case nothing is stored.
    """
    if not getattr(user, "is_authenticated", False):
        raise SubmissionError("user", "log in to run or submit", status=401)
    if mode not in Mode.values:
        raise SubmissionError("mode", f"mode must be 'run' or 'submit', not {mode!r}")
    if not problem.published and not getattr(user, "is_staff", False):
        raise SubmissionError("problem", f"problem {problem.number} is not published", status=404)
    if not isinstance(code, str) or not code.strip():
        raise SubmissionError("code", "code is empty")
    refused = code_text_problem(code)
    if refused:
        raise SubmissionError("code", refused)

    User = get_user_model()
    with transaction.atomic():
        # Lock the user's row so that concurrent requests of one user count each other.
        User.objects.select_for_update().filter(pk=user.pk).first()
        limit = settings.JUDGE_RATE_LIMIT_PER_MINUTE
        since = timezone.now() - timedelta(seconds=60)
        recent = Submission.objects.filter(user_id=user.pk, created_at__gte=since).count()
        if recent >= limit:
            raise SubmissionError(
                "rate",
                f"too many runs: at most {limit} runs and submissions per minute; "
                "wait a minute and try again",
                status=429,
            )
        _check_in_flight_caps(user.pk, address)
        submission = Submission.objects.create(
            user_id=user.pk,
            problem=problem,
            mode=mode,
            code=code,
            status=Status.QUEUED,
            client_ip=address,
        )
        queue = queue_for(problem)
        sid = submission.pk
        transaction.on_commit(lambda: _enqueue(sid, queue))
    return submission


def _check_in_flight_caps(user_id: int, address: str | None) -> None:
    """Refuse a judging beyond the caps on judgings queued or running (0: no cap)."""
    in_flight = Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING])
    per_user = settings.JUDGE_MAX_QUEUED_PER_USER
    if per_user and in_flight.filter(user_id=user_id).count() >= per_user:
        raise SubmissionError(
            "rate",
            f"you already have {per_user} judgings waiting or running; "
            "wait for one to finish and try again",
            status=429,
        )
    per_address = settings.JUDGE_MAX_QUEUED_PER_ADDRESS
    if per_address and address and in_flight.filter(client_ip=address).count() >= per_address:
        raise SubmissionError(
            "rate",
            f"{per_address} judgings sent from your network address are waiting or running; "
            "wait for them to finish and try again",
            status=429,
        )


# Indirections so tests can replace the engine without importing torch-heavy modules.
def _load_package(package_dir: str) -> Any:
    from sandbox.problem import load_package

    return load_package(package_dir)


def _judge_source(package: Any, source: str, mode: str, on_progress: Callable[[Any], None]) -> Any:
    from judge_site.submissions.engine import judge_source
    from sandbox.contracts import Mode as EngineMode

    return judge_source(package, source, EngineMode(mode), on_progress=on_progress)


def _claim(submission: Submission) -> Any | None:
    """queued -> running for this worker, unless the user already has a running judging.

    Returns the new attempt token, "busy" when the user has another running judging, or None
    when someone else claimed (or finished) it.
    """
    User = get_user_model()
    token = Submission.new_token()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=submission.user_id).first()
        busy = (
            Submission.objects.filter(user_id=submission.user_id, status=Status.RUNNING)
            .exclude(pk=submission.pk)
            .exists()
        )
        if busy:
            return "busy"
        claimed = Submission.objects.filter(pk=submission.pk, status=Status.QUEUED).update(
            status=Status.RUNNING,
            attempt_token=token,
            attempts=F("attempts") + 1,
            started_at=timezone.now(),
            tests=[],
            benchmark=None,
            verdict="",
            message="",
        )
    return token if claimed else None


def submission_judge(submission_id: int) -> JudgeOutcome:
    """Judge one submission (called by the Celery task). Safe to call twice."""
    submission = Submission.objects.select_related("problem").filter(pk=submission_id).first()
    if submission is None or submission.status != Status.QUEUED:
        return JudgeOutcome("skipped", "not queued")
    token = _claim(submission)
    if token == "busy":
        _enqueue(submission.pk, queue_for(submission.problem), countdown=BUSY_COUNTDOWN_S)
        return JudgeOutcome("busy", "another judging of this user is running")
    if token is None:
        return JudgeOutcome("skipped", "claimed by someone else")
    attempts = Submission.objects.values_list("attempts", flat=True).get(pk=submission.pk)
    mine = Submission.objects.filter(pk=submission.pk, attempt_token=token, status=Status.RUNNING)
    progress: list[dict[str, Any]] = []

    def on_progress(test: Any) -> None:
        progress.append(test.to_json())
        mine.update(tests=list(progress))

    try:
        package = _load_package(submission.problem.package_dir)
    except Exception as exc:  # a broken package is ours, and retrying will not fix it
        logger.exception("submission %s: cannot load the package", submission.pk)
        _finish_internal(submission.pk, token, f"internal error: the problem package: {exc}")
        return JudgeOutcome("failed", str(exc))
    try:
        result = _judge_source(package, submission.code, submission.mode, on_progress)
    except ImproperlyConfigured as exc:  # a configuration error: retrying cannot help
        logger.error("submission %s: the judge is misconfigured: %s", submission.pk, exc)
        _finish_internal(submission.pk, token, "internal error: the judge is misconfigured")
        return JudgeOutcome("failed", str(exc))
    except Exception as exc:
        logger.exception("submission %s: the engine failed (attempt %s)", submission.pk, attempts)
        if attempts < MAX_ATTEMPTS:
            requeued = mine.update(
                status=Status.QUEUED, attempt_token=None, started_at=None, tests=[]
            )
            if requeued:
                _enqueue(submission.pk, queue_for(submission.problem), RETRY_COUNTDOWN_S)
            return JudgeOutcome("retry", str(exc))
        _finish_internal(
            submission.pk, token, f"internal error after {attempts} attempts: {type(exc).__name__}"
        )
        return JudgeOutcome("failed", str(exc))

    data = result.to_json()
    finished = mine.update(
        status=Status.DONE,
        verdict=data["verdict"] if data["verdict"] in VerdictChoice.values else VerdictChoice.IE,
        tests=data["tests"],
        benchmark=data["benchmark"],
        environment=data.get("environment") or {},
        message=data.get("message", ""),
        problem_version=data.get("problem_version") or submission.problem.version,
        finished_at=timezone.now(),
    )
    if not finished:
        return JudgeOutcome("skipped", "lost the claim while judging (reaped?)")
    return JudgeOutcome("judged", data["verdict"])


def _finish_internal(submission_id: int, token: Any, message: str) -> int:
    return Submission.objects.filter(
        pk=submission_id, attempt_token=token, status=Status.RUNNING
    ).update(
        status=Status.DONE,
        verdict=VerdictChoice.IE,
        message=message,
        finished_at=timezone.now(),
    )


def submission_reap_stuck(now: Any = None) -> dict[str, int]:
    """Submissions ``running`` beyond the hard time limit: re-queue once, then IE.

    A worker that died mid-judging leaves its submission running; its token is replaced here,
    so if that worker ever comes back its writes touch zero rows.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    requeued = failed = 0
    stuck = Submission.objects.filter(status=Status.RUNNING, started_at__lt=cutoff).select_related(
        "problem"
    )
    for sub in stuck:
        guard = Submission.objects.filter(
            pk=sub.pk, status=Status.RUNNING, attempt_token=sub.attempt_token
        )
        if sub.attempts < 2:
            if guard.update(status=Status.QUEUED, attempt_token=None, started_at=None, tests=[]):
                requeued += 1
                pk, queue = sub.pk, queue_for(sub.problem)
                transaction.on_commit(lambda pk=pk, queue=queue: _enqueue(pk, queue))
        elif guard.update(
            status=Status.DONE,
            verdict=VerdictChoice.IE,
            message="internal error: the judging did not finish (worker lost)",
            finished_at=now,
        ):
            failed += 1
    return {"requeued": requeued, "failed": failed}

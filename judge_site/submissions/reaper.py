"""The reaper: judgings nobody is working on (a worker died, a message was lost) are given to a
worker again, or end IE after MAX_ATTEMPTS claims. Runs every JUDGE_REAP_EVERY_S on the
maintenance queue (tasks.reap_stuck), and for its own judgings when a worker starts.

It sends and finishes through the services module's functions, looked up when called (tests
replace ``services._enqueue`` and ``services.queue_for``)."""

from __future__ import annotations

import enum
import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from judge_site.submissions import services
from judge_site.submissions.models import Status, Submission, VerdictChoice

logger = logging.getLogger(__name__)


class GiveBack(enum.StrEnum):
    """What ``_give_back`` did with a judging whose worker is gone."""

    REQUEUED = "requeued"  # queued again, with a new token
    FAILED = "failed"  # IE after MAX_ATTEMPTS claims
    CHANGED = ""  # nothing: it changed meanwhile (finished, or given back by someone else)


def _give_back(sub: Submission, now: Any) -> GiveBack:
    """A running judging whose worker is gone: queued again with a new token (so the old
    worker's writes, if it ever comes back, touch zero rows), or IE after MAX_ATTEMPTS claims."""
    guard = Submission.objects.filter(
        pk=sub.pk, status=Status.RUNNING, attempt_token=sub.attempt_token
    )
    if sub.attempts < services.MAX_ATTEMPTS:
        if guard.update(
            status=Status.QUEUED,
            attempt_token=None,
            started_at=None,
            heartbeat_at=None,
            queued_at=now,
            worker="",
            tests=[],
        ):
            logger.warning("submission %s: its worker %s is gone; queued again", sub.pk,
                           sub.worker or "(unnamed)")
            services._enqueue(sub.pk, services.queue_for(sub.problem))
            return GiveBack.REQUEUED
        return GiveBack.CHANGED
    if services._finish(
        guard,
        sub,
        status=Status.DONE,
        verdict=VerdictChoice.IE,
        message=(
            f"internal error: the judging did not finish after {sub.attempts} attempts "
            "(its worker was lost each time)"
        ),
        finished_at=now,
    ):
        return GiveBack.FAILED
    return GiveBack.CHANGED


def submission_give_back_own(worker: str) -> int:
    """At a worker's start, before its first judging: the judgings still ``running`` under its
    node name were cut short when its previous run died; give them back at once instead of
    waiting for their heartbeat to go stale. Returns how many."""
    if not worker:
        return 0
    now = timezone.now()
    mine = Submission.objects.filter(status=Status.RUNNING, worker=worker)
    return sum(1 for sub in mine.select_related("problem")
               if _give_back(sub, now) is not GiveBack.CHANGED)


def submission_reap_stuck(now: Any = None) -> dict[str, int]:
    """Find the judgings nobody is working on, and give them to a worker again.

    - ``running`` whose heartbeat is older than JUDGE_HEARTBEAT_STALE_S (its worker died, or
      lost the database for that long), or that outlived the task's hard time limit: queued
      again with a new token, so the old worker's writes, if it ever comes back, touch zero
      rows; after MAX_ATTEMPTS claims it ends IE with a message instead.
    - ``queued`` for longer than JUDGE_REQUEUE_AFTER_S with no message for it in the broker
      (lost with a failed task, a Redis restart, a dead worker): sent again.

    Returns counts: requeued (running -> queued), failed (-> IE), resent (queued, sent again).
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.JUDGE_HEARTBEAT_STALE_S)
    too_long = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    requeued = failed = resent = 0
    stuck = Submission.objects.filter(status=Status.RUNNING).filter(
        Q(heartbeat_at__lt=stale)
        | Q(heartbeat_at__isnull=True, started_at__lt=stale)
        | Q(started_at__lt=too_long)
    )
    for sub in stuck.select_related("problem"):
        outcome = _give_back(sub, now)
        requeued += outcome is GiveBack.REQUEUED
        failed += outcome is GiveBack.FAILED

    waited = now - timedelta(seconds=settings.JUDGE_REQUEUE_AFTER_S)
    waiting = list(
        Submission.objects.filter(status=Status.QUEUED)
        .filter(Q(queued_at__lt=waited) | Q(queued_at__isnull=True, created_at__lt=waited))
        .select_related("problem")
    )
    if waiting:
        from judge_site.submissions.broker import live_submission_ids

        live = live_submission_ids(
            {services.queue_for(sub.problem) for sub in waiting}, settings.JUDGE_REQUEUE_AFTER_S
        )
        for sub in waiting:
            if live is not None and sub.pk in live:
                continue
            if Submission.objects.filter(
                pk=sub.pk, status=Status.QUEUED, queued_at=sub.queued_at
            ).update(queued_at=now):
                resent += 1
                services._enqueue(sub.pk, services.queue_for(sub.problem))
    return {"requeued": requeued, "failed": failed, "resent": resent}

"""Rejudges: judge finished submissions again with their problem's current package.

Each submission is one task on the low-priority queue JUDGE_REJUDGE_QUEUE ("rejudge"), which
only a worker of its own consumes, so a rejudge never waits in front of a student's judging on
``cpu``/``gpu``; a GPU problem's (or a GPU-timed submission's) goes to JUDGE_GPU_REJUDGE_QUEUE,
served by GPU workers only, while one is alive, and a CPU result never replaces a GPU timing.
A rejudge never puts a submission back to ``queued``/``running``: the student keeps seeing the
old result until the new one is written in one UPDATE, and the one-running-judging-per-user rule
of the student queues never waits for a rejudge.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.core.queueing import enqueue
from judge_site.staff.models import Rejudge, RejudgeItem, RejudgeStatus
from judge_site.staff.services.audit import audit_record
from judge_site.staff.services.rejudge_notices import rejudge_notices_queue
from judge_site.submissions import aggregates, routing
from judge_site.submissions import services as submission_services
from judge_site.submissions.models import Mode, Status, Submission, fields_from_result
from judge_site.submissions.routing import judged_on_gpu

logger = logging.getLogger(__name__)


def _enqueue_item(item_id: int) -> None:
    enqueue("staff.rejudge_item", (item_id,), queue=_item_queue(item_id))


def _item_queue(item_id: int) -> str:
    """A GPU problem's item (or one judged on a GPU before) goes to the GPU workers' queue while
    one is alive (routing.background_queue); any other to JUDGE_REJUDGE_QUEUE."""
    row = RejudgeItem.objects.filter(pk=item_id).values_list(
        "submission__problem__device", "submission__environment").first()
    if row is None:
        return str(settings.JUDGE_REJUDGE_QUEUE)
    return routing.background_queue(row[0], settings.JUDGE_REJUDGE_QUEUE, judged_on_gpu(row[1]))


def _enqueue_items(ids: list[int]) -> None:
    for pk in ids:
        _enqueue_item(pk)


def rejudge_start(actor: Any, submissions: Iterable[Submission], scope: str,
                  fresh_seed: bool = False) -> Rejudge:
    """Rejudge ``submissions`` (those finished; others are skipped) and enqueue one task each.
    Each is judged with its last judging's secret seed (the same hidden inputs), unless
    ``fresh_seed`` asks for new ones."""
    with transaction.atomic():
        rejudge = Rejudge.objects.create(
            created_by=actor if getattr(actor, "pk", None) else None, scope=scope[:200],
            fresh_seed=fresh_seed,
        )
        items = RejudgeItem.objects.bulk_create(
            RejudgeItem(
                rejudge=rejudge, submission=sub, verdict_before=sub.verdict,
                version_before=sub.problem_version,
            )
            for sub in submissions
            if sub.status == Status.DONE
        )
        if not items:
            rejudge.finished_at = timezone.now()
            rejudge.save(update_fields=["finished_at"])
        audit_record(actor, "rejudge.start", f"rejudge {rejudge.pk}", scope=scope,
                     submissions=len(items), **({"fresh_seed": True} if fresh_seed else {}))
        ids = [item.pk for item in items]
        transaction.on_commit(lambda: _enqueue_items(ids))
    return rejudge


def rejudge_submission(actor: Any, submission: Submission, fresh_seed: bool = False) -> Rejudge:
    return rejudge_start(actor, [submission], f"submission {submission.pk}", fresh_seed)


def rejudge_problem(actor: Any, problem: Problem, only_accepted: bool = False,
                    fresh_seed: bool = False) -> Rejudge:
    """Every finished Submit of ``problem`` (or only the accepted ones)."""
    subs = Submission.objects.filter(problem=problem, mode=Mode.SUBMIT, status=Status.DONE)
    if only_accepted:
        subs = subs.filter(verdict="AC")
    scope = f"problem {problem.number}" + (" (accepted only)" if only_accepted else "")
    return rejudge_start(actor, subs.order_by("pk"), scope, fresh_seed)


def rejudge_item_judge(item_id: int) -> str:
    """Judge one rejudge item (the worker's task); safe to call twice."""
    # Pending, or left running by a worker that died (the task is redelivered): claim it.
    stale = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    claimed = RejudgeItem.objects.filter(
        Q(status=RejudgeStatus.PENDING) | Q(status=RejudgeStatus.RUNNING, started_at__lt=stale),
        pk=item_id,
    ).update(status=RejudgeStatus.RUNNING, started_at=timezone.now())
    if not claimed:
        return "skipped: not pending"
    item = RejudgeItem.objects.select_related("submission__problem", "rejudge").get(pk=item_id)
    sub = item.submission
    mine = RejudgeItem.objects.filter(pk=item_id, status=RejudgeStatus.RUNNING)
    seed = None if item.rejudge.fresh_seed else sub.secret_seed  # None: a new one is drawn
    try:
        package = submission_services.package_of(sub.problem.package_dir, sub.problem.version)
        scratch = {"script": sub.script} if sub.mode == Mode.SCRATCH else {}  # its own lines
        result = submission_services._judge_source(package, sub.code, sub.mode, lambda _: None,
                                                   secret_seed=seed, **scratch)
    except Exception as exc:  # the engine failed: the submission keeps its verdict
        logger.exception("rejudge item %s failed", item_id)
        mine.update(status=RejudgeStatus.FAILED, finished_at=timezone.now(),
                    message=f"internal error: {type(exc).__name__}: {exc}"[:2000])
        _maybe_finish(item.rejudge_id)
        return "failed"
    fields = fields_from_result(result, sub.problem.version)
    if judged_on_gpu(sub.environment) and not judged_on_gpu(fields["environment"]):
        # A GPU timing is never replaced by a CPU's (Triton's interpreter): no GPU worker took it.
        mine.update(status=RejudgeStatus.FAILED, finished_at=timezone.now(),
                    message="not applied: judged on a CPU, and this submission's result was "
                            "timed on a GPU; rejudge it again while a GPU worker is running")
        _maybe_finish(item.rejudge_id)
        return "kept: GPU result"
    with transaction.atomic():
        if Submission.objects.filter(pk=sub.pk, status=Status.DONE).update(**fields):
            aggregates.stats_refresh_pair(sub.user_id, sub.problem_id)  # the aggregates follow
        mine.update(
            status=RejudgeStatus.DONE, finished_at=timezone.now(),
            verdict_after=fields["verdict"], version_after=fields["problem_version"],
            message=fields["message"][:2000],
        )
    _maybe_finish(item.rejudge_id)
    return f"{item.verdict_before} -> {fields['verdict']}"


def _maybe_finish(rejudge_id: int) -> None:
    open_items = RejudgeItem.objects.filter(
        rejudge_id=rejudge_id, status__in=[RejudgeStatus.PENDING, RejudgeStatus.RUNNING]
    )
    if not open_items.exists():
        finished = Rejudge.objects.filter(pk=rejudge_id, finished_at=None)
        if finished.update(finished_at=timezone.now()):  # once, by whoever finished it
            transaction.on_commit(lambda: rejudge_notices_queue(rejudge_id))

"""Celery tasks: thin wrappers around services (JSON arguments only)."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import (
    celeryd_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)
from django.conf import settings

from judge_site.submissions import reaper, services
from judge_site.submissions.faults import TRANSIENT_ERRORS
from judge_site.worker import gpus
from judge_site.worker.backends import remove_own_pooled
from judge_site.worker.engine import judge_engine

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    ignore_result=True,
    name="submissions.judge_submission",
    # A database or broker that went away (a restart) fails the task before or after the
    # judging: it is tried again with backoff (Celery closes the database connections around
    # every task, so the retry reconnects). What escapes every retry is found by the reaper.
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=30,
    retry_jitter=False,
    max_retries=8,
)
def judge_submission(submission_id: int) -> str:
    """Judge one submission. Routed to queue "cpu" or "gpu" by the caller (services)."""
    outcome = services.submission_judge(int(submission_id))
    return f"{outcome.action}: {outcome.detail}"


@shared_task(acks_late=True, ignore_result=True, name="submissions.reap_stuck")
def reap_stuck() -> dict[str, int]:
    """Every JUDGE_REAP_EVERY_S (settings.CELERY_BEAT_SCHEDULE), on the maintenance queue."""
    return reaper.submission_reap_stuck()


@shared_task(acks_late=True, ignore_result=True, name="submissions.reconcile_stats")
def reconcile_stats() -> dict[str, int]:
    """Every JUDGE_STATS_RECONCILE_EVERY_S, on the maintenance queue: the aggregates
    recomputed from the submissions, what differs repaired (aggregates.stats_reconcile)."""
    from judge_site.submissions import aggregates

    fixed = aggregates.stats_reconcile()
    return {"pairs": fixed.pairs, "problems": fixed.problems, "users": fixed.users}


def _judges(sender: Any) -> bool:
    """Whether this worker consumes judging queues (not only the maintenance queue)."""
    consumer = getattr(sender, "task_consumer", None)
    queues = {q.name for q in getattr(consumer, "queues", None) or []}
    return not queues or bool(queues - {settings.JUDGE_MAINTENANCE_QUEUE})


@celeryd_init.connect
def _name_sandboxes(sender: Any = None, options: Any = None, **_: Any) -> None:
    """The worker's node name labels its sandboxes (inherited by its judging processes). A
    worker of the gpu queue on a host where no GPU is found refuses to start (gpus.py)."""
    if sender:
        judge_engine().worker_name = str(sender)
    gpus.require_for_queues((options or {}).get("queues"))


@worker_ready.connect
def _sweep_orphans(sender: Any = None, **_: Any) -> None:
    """A worker starting (perhaps after a crash) removes the sandboxes a dead worker left: the
    warm ones its host's previous run started and those labelled with its own name (none of its
    own judgings has begun yet: a worker restarted mid-judging leaves the sandbox of that
    judging here), and any old enough to be an orphan of another worker."""
    if _judges(sender):
        engine = judge_engine()
        remove_own_pooled()
        engine.remove_own_sandboxes()
        engine.reap_orphans(force=True)
        try:  # its judgings cut short: to a worker again at once (else the reaper, in ~30 s)
            reaper.submission_give_back_own(engine.worker_name)
        except TRANSIENT_ERRORS as exc:
            logger.warning("giving back this worker's judgings failed: %s", exc)


@worker_process_init.connect
def _start_pool(**_: Any) -> None:
    """Each judging process keeps JUDGE_SANDBOX_POOL_SIZE sandboxes started ahead (docker), on
    a CPU set of its own (JUDGE_SANDBOX_CPUSETS)."""
    from billiard.process import current_process

    index = int(getattr(current_process(), "index", 0) or 0)
    engine = judge_engine()  # the worker's, inherited at the fork: this process's own from now on
    engine.pin(index)
    gpus.hold(index)
    engine.enable_pool(settings.JUDGE_SANDBOX_POOL_SIZE)


@worker_process_shutdown.connect
def _stop_pool(**_: Any) -> None:
    judge_engine().close()


@worker_shutdown.connect
def _remove_pooled(**_: Any) -> None:
    engine = judge_engine()
    engine.close()  # the solo pool judges in the main process
    remove_own_pooled()
    # A stop ends the judging processes without their own shutdown (a cold shutdown: compose's
    # stop signal): what they started (sandboxes, graders, all labelled with this worker's
    # name) would outlive the stack otherwise.
    engine.remove_own_sandboxes()

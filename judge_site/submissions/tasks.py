"""Celery tasks: thin wrappers around services (JSON arguments only)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import (
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)
from django.conf import settings

from judge_site.submissions import engine, services

# How often the reaper looks for submissions stuck in "running" (needs `celery beat`).
REAP_EVERY_S = 60.0


@shared_task(acks_late=True, name="submissions.judge_submission")
def judge_submission(submission_id: int) -> str:
    """Judge one submission. Routed to queue "cpu" or "gpu" by the caller (services)."""
    outcome = services.submission_judge(int(submission_id))
    return f"{outcome.action}: {outcome.detail}"


@shared_task(acks_late=True, name="submissions.reap_stuck")
def reap_stuck() -> dict[str, int]:
    return services.submission_reap_stuck()


@worker_ready.connect
def _sweep_orphans(**_: Any) -> None:
    """A worker starting (perhaps after a crash) removes the sandboxes a dead worker left."""
    engine.reap_orphans(force=True)


@worker_process_init.connect
def _start_pool(**_: Any) -> None:
    """Each judging process keeps JUDGE_SANDBOX_POOL_SIZE sandboxes started ahead (docker)."""
    engine.enable_pool(settings.JUDGE_SANDBOX_POOL_SIZE)


@worker_process_shutdown.connect
def _stop_pool(**_: Any) -> None:
    engine.close_pools()


@worker_shutdown.connect
def _remove_pooled(**_: Any) -> None:
    engine.close_pools()  # the solo pool judges in the main process
    engine.remove_own_pooled()


def _schedule(sender: Any, **_: Any) -> None:
    sender.add_periodic_task(REAP_EVERY_S, reap_stuck.s(), name="reap stuck submissions")


def _connect() -> None:
    from judge_site.celery import app

    app.on_after_finalize.connect(_schedule, weak=False)


_connect()

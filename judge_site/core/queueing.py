"""Sending a Celery task by its registered name, so that services need not import their tasks
module (which imports the services: an import cycle).

The task is looked up in the app's registry and sent with ``apply_async`` (not ``send_task``),
so ``CELERY_TASK_ALWAYS_EAGER`` and the task's own options hold exactly as when the task object
is imported."""

from __future__ import annotations

from typing import Any

from celery.exceptions import NotRegistered


def enqueue(task_name: str, args: tuple[Any, ...], *, queue: str, countdown: float = 0) -> None:
    """Send ``task_name`` with ``args`` to ``queue`` (after ``countdown`` seconds)."""
    from judge_site.celery import app

    try:
        task = app.tasks[task_name]
    except NotRegistered:  # the tasks modules are imported lazily (autodiscover_tasks)
        app.loader.import_default_modules()
        task = app.tasks[task_name]
    task.apply_async(args, queue=queue, countdown=countdown)

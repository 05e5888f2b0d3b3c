"""Infrastructure tasks (the judging tasks live in judge_site/submissions/tasks.py)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="core.ping")
def ping() -> str:
    """Answers "pong": proves a worker consumes the queue and results come back."""
    return "pong"

"""Similarity's task: a thin wrapper around services.run_execute."""

from __future__ import annotations

from celery import shared_task

from judge_site.similarity.services import run_execute


@shared_task(acks_late=True, name="similarity.run")
def run_similarity(run_id: int) -> str:
    return run_execute(int(run_id))

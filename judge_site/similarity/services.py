"""Similarity runs: started from the page (a background task with progress) or computed at once
by ``manage.py similarity``. The scoring is compare.py's; the code compared is selectors'."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.core.queueing import enqueue
from judge_site.courses.models import Assignment
from judge_site.similarity import compare, selectors
from judge_site.similarity.models import RunStatus, SimilarityPair, SimilarityRun

log = logging.getLogger(__name__)

TASK_NAME = "similarity.run"
# A run still queued or running this long after it was started no longer stops a new one (its
# worker died, or it waited behind a long rejudge): it is marked failed.
STALE_AFTER = timedelta(minutes=15)


class SimilarityError(Exception):
    """A refusal, said to the user as is (what was wrong and what to do)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def parse_threshold(raw: Any) -> float:
    """A threshold from a form or the command line: a number from 0 to 1 (an empty value is
    compare.DEFAULT_THRESHOLD)."""
    if raw is None or str(raw).strip() == "":
        return compare.DEFAULT_THRESHOLD
    try:
        value = float(str(raw).strip())
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:  # NaN fails both comparisons
        raise SimilarityError(
            f"The threshold must be a number from 0 to 1 ({compare.DEFAULT_THRESHOLD} is the "
            f"default), not {str(raw)[:40]!r}."
        )
    return value


def assignment_report(assignment: Assignment, threshold: float,
                      progress: compare.Progress | None = None) -> compare.Report:
    """Every pair of the assignment at or above ``threshold``, computed now (nothing stored)."""
    return compare.compare(selectors.assignment_inputs(assignment), threshold, progress)


def run_start(user: Any, assignment: Assignment, threshold: float) -> SimilarityRun:
    """Queue a run of the assignment; refused while another is queued or running (unless it is
    older than STALE_AFTER: its worker is gone, and it is marked failed)."""
    cutoff = timezone.now() - STALE_AFTER
    with transaction.atomic():
        Assignment.objects.select_for_update().filter(pk=assignment.pk).first()
        going = SimilarityRun.objects.filter(
            assignment=assignment, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
        )
        going.filter(created_at__lt=cutoff).update(
            status=RunStatus.FAILED, finished_at=timezone.now(),
            message="It did not finish within 15 minutes (its worker stopped, or the rejudge "
                    "queue was busy): start it again.",
        )
        if going.exists():
            raise SimilarityError(
                "A similarity run of this assignment is already going: wait for it to finish "
                "(this page shows its progress)."
            )
        run = SimilarityRun.objects.create(
            assignment=assignment, requested_by=user if user.is_authenticated else None,
            threshold=threshold,
        )
        transaction.on_commit(lambda: _send(run.pk))
    return run


def _send(run_id: int) -> None:
    try:
        enqueue(TASK_NAME, (run_id,), queue=settings.JUDGE_REJUDGE_QUEUE)
    except Exception:  # the broker is down: say so on the page rather than queue forever
        log.exception("similarity run %s could not be queued", run_id)
        SimilarityRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
            status=RunStatus.FAILED, finished_at=timezone.now(),
            message="The task queue could not be reached: try again in a minute, or ask the "
                    "site's staff to check the workers.",
        )


def run_execute(run_id: int) -> str:
    """The task's body: claim the run (queued -> running), compare, store the pairs."""
    claimed = SimilarityRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
        status=RunStatus.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return "not queued"
    run = SimilarityRun.objects.select_related("assignment__course").get(pk=run_id)
    mine = Q(pk=run_id, status=RunStatus.RUNNING)

    def progress(done: int, total: int) -> None:
        SimilarityRun.objects.filter(mine).update(done=done, total=total)

    try:
        inputs = selectors.assignment_inputs(run.assignment)
        SimilarityRun.objects.filter(mine).update(total=compare.steps_for(inputs))
        report = compare.compare(inputs, run.threshold, progress)
        _store(run, report)
    except Exception as exc:
        log.exception("similarity run %s failed", run_id)
        SimilarityRun.objects.filter(mine).update(
            status=RunStatus.FAILED, finished_at=timezone.now(),
            message=f"The run failed ({type(exc).__name__}): start it again; if it fails again, "
                    "tell the site's staff.",
        )
        return "failed"
    return "done"


def _store(run: SimilarityRun, report: compare.Report) -> None:
    problems = dict(Problem.objects.filter(
        number__in={m.problem for m in report.matches}).values_list("number", "pk"))
    with transaction.atomic():
        SimilarityPair.objects.bulk_create(
            SimilarityPair(run=run, problem_id=problems[m.problem], a_submission_id=m.a_submission,
                           b_submission_id=m.b_submission, score=m.score)
            for m in report.matches[: SimilarityPair.MAX_STORED]
        )
        SimilarityRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
            status=RunStatus.DONE, finished_at=timezone.now(), done=F("total"),
            documents=report.documents, pairs_scored=report.pairs_scored,
            pairs_found=len(report.matches),
            boilerplate={str(k): v for k, v in report.boilerplate.items()},
        )


def progress_of(run: SimilarityRun) -> dict[str, Any]:
    """The progress endpoint's answer."""
    return {
        "status": run.status, "done": run.done, "total": run.total, "percent": run.percent,
        "finished": run.finished, "message": run.message,
    }

"""Celery tasks of the LTI app: thin wrappers around judge_site/lti/grades.py and roster.py."""

from __future__ import annotations

from celery import shared_task

from judge_site.lti import grades, roster


@shared_task(
    acks_late=True,
    ignore_result=True,
    name="lti.push_grade",
    autoretry_for=(grades.GradePushError,),
    retry_backoff=5,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=6,
)
def push_grade(push_id: int) -> str:
    """Send one pending grade push (queued on settings.LTI_GRADE_QUEUE). What escapes every
    retry stays pending in the database and is queued again by ``sweep_grade_pushes``."""
    return grades.grade_push_send(int(push_id))


@shared_task(acks_late=True, ignore_result=True, name="lti.sweep_grade_pushes")
def sweep_grade_pushes() -> int:
    """Every LTI_GRADE_SWEEP_EVERY_S (settings.CELERY_BEAT_SCHEDULE): resend pending pushes."""
    return grades.grade_push_sweep()


@shared_task(acks_late=True, ignore_result=True, name="lti.sync_roster",
             autoretry_for=(roster.RosterError,), retry_backoff=10, max_retries=3)
def sync_roster(course_link_id: int) -> dict[str, int]:
    """Read the LMS course's roster (NRPS) after an instructor's launch."""
    return roster.roster_sync(int(course_link_id)).as_dict()

"""Grades back to the LMS (LTI Assignment and Grade Services).

When a verdict is written for a student's submission to a problem of an assignment that an LMS
link opens, the student's credit on that assignment (judge_site/courses/grading.py: 1 per
problem on time, ``late_credit`` in the late window) is recorded as a pending ``GradePush`` in the
verdict's own transaction, then sent by a Celery task (``lti.push_grade``) once that
transaction commits. Nothing is lost: a send that fails is retried with backoff, and a row still
pending after that (a platform down for hours, a broker restarted before the task ran) is sent
again by the periodic sweep (``lti.sweep_grade_pushes``). Nothing is counted twice: a row holds
the latest score of its (link, student), each change bumps its version, a send marks it sent
only if the version it sent is still current, and the AGS timestamp is the time the score was
computed, so a platform keeps the newest of two sends that cross.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, Final

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from lti_tool.models import LtiUser
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.service_connector import ServiceConnector

from judge_site.core.queueing import enqueue
from judge_site.courses import grading
from judge_site.courses.models import Role
from judge_site.lti.models import AssignmentLink, GradePush, PushState

logger = logging.getLogger(__name__)

SCORE_SCOPE: Final = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
HTTP_TIMEOUT_S = 15  # a platform that hangs holds a worker this long at most


class GradePushError(Exception):
    """A send that failed for a reason that may pass (the platform down, a 5xx, a timeout)."""


class TimeoutSession(requests.Session):
    """pylti1p3 sends without a timeout: every request of this session has one."""

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        kwargs.setdefault("timeout", HTTP_TIMEOUT_S)
        return super().request(*args, **kwargs)


def on_verdict_written(sender: Any, submission: Any, **_: Any) -> None:
    """The signal's receiver: record the pushes in a savepoint of the verdict's transaction.
    A failure here is logged and never undoes the verdict (the sweep cannot see a row that
    was never written, so it is logged as an error)."""
    try:
        with transaction.atomic():
            grade_pushes_record(submission.user_id, submission.problem_id)
    except Exception:
        logger.exception(
            "LTI: grade pushes for submission %s were not recorded", getattr(submission, "pk", "?")
        )


def grade_pushes_record(user_id: int, problem_id: int) -> list[int]:
    """Record the user's current credit on every LMS-linked assignment holding the problem
    (for links the user launched from: the platform's id for them is known). Returns the ids
    of the rows whose score changed; each is sent once the transaction commits."""
    links = list(
        AssignmentLink.objects.filter(
            assignment__items__problem_id=problem_id,
            assignment__course__memberships__user_id=user_id,
            assignment__course__memberships__role=Role.STUDENT,
        )
        .exclude(lineitem_url="")
        .select_related("assignment__course", "resource_link__context__deployment")
        .distinct()
    )
    changed: list[int] = []
    for link in links:
        registration_id = link.resource_link.context.deployment.registration_id
        if not LtiUser.objects.filter(registration_id=registration_id, auth_user_id=user_id).exists():
            continue
        given, maximum = assignment_score(link, user_id)
        push_id = _upsert(link, user_id, given, maximum)
        if push_id is not None:
            changed.append(push_id)
    for push_id in changed:
        transaction.on_commit(lambda pk=push_id: _enqueue_send(pk))
    return changed


def assignment_score(link: AssignmentLink, user_id: int) -> tuple[float, float]:
    """(score given, maximum): the student's credit summed over the assignment's problems, out
    of one per problem (what the course's gradebook shows)."""
    course = link.assignment.course
    book = grading.gradebook(course, only_user_id=user_id)
    maximum = float(sum(1 for c in book.columns if c.assignment.pk == link.assignment_id))
    given = 0.0
    for row in book.rows:
        given = float(row.totals.get(link.assignment_id, 0.0))
    return round(given, 6), maximum


def _upsert(link: AssignmentLink, user_id: int, given: float, maximum: float) -> int | None:
    now = timezone.now()
    push, created = GradePush.objects.select_for_update().get_or_create(
        link=link, user_id=user_id,
        defaults={"score_given": given, "score_maximum": maximum, "scored_at": now},
    )
    if created:
        return push.pk
    if push.score_given == given and push.score_maximum == maximum:
        return None  # the platform has (or will get) this very score: nothing to send again
    GradePush.objects.filter(pk=push.pk).update(
        score_given=given, score_maximum=maximum, scored_at=now, state=PushState.PENDING,
        version=F("version") + 1, last_error="",
    )
    return push.pk


def _enqueue_send(push_id: int) -> None:
    try:
        enqueue("lti.push_grade", (push_id,), queue=settings.LTI_GRADE_QUEUE)
    except Exception as exc:  # the broker away: the row stays pending for the sweep
        logger.warning("LTI: grade push %s not queued (%s); the sweep sends it", push_id, exc)


def grade_push_send(push_id: int) -> str:
    """Send one row's current score to its line item. Raises GradePushError for a failure
    worth retrying; a refusal that retrying cannot fix (4xx, no score scope) is kept on the
    row (``last_error``) and left pending for staff to see in the admin."""
    push = (
        GradePush.objects.select_related("link__resource_link__context__deployment__registration")
        .filter(pk=push_id)
        .first()
    )
    if push is None:
        return "gone"
    if push.state == PushState.SENT:
        return "already sent"
    link = push.link
    registration = link.resource_link.context.deployment.registration
    lti_user = LtiUser.objects.filter(registration=registration, auth_user_id=push.user_id).first()
    if lti_user is None:
        return _failed(push, "the student has no account on this platform any more")
    grade = (
        Grade()
        .set_score_given(push.score_given)
        .set_score_maximum(push.score_maximum)
        .set_timestamp(push.scored_at.isoformat())
        .set_activity_progress("Completed" if push.score_given else "Submitted")
        .set_grading_progress("FullyGraded")
        .set_user_id(lti_user.sub)
    )
    connector = ServiceConnector(registration.to_registration(), requests_session=TimeoutSession())
    service = AssignmentsGradesService(
        connector, {"scope": [SCORE_SCOPE], "lineitem": link.lineitem_url}
    )
    GradePush.objects.filter(pk=push.pk).update(attempts=F("attempts") + 1)
    try:
        service.put_grade(grade)
    except LtiServiceException as exc:
        status = getattr(getattr(exc, "response", None), "status_code", 0) or 0
        message = f"the platform answered {status}: {str(exc)[:300]}"
        if status >= 500 or status in (401, 408, 429):  # may pass (401: a token expired)
            _failed(push, message)
            raise GradePushError(message) from exc
        return _failed(push, message)
    except requests.RequestException as exc:
        _failed(push, f"the platform is unreachable: {exc}")
        raise GradePushError(str(exc)) from exc
    except LtiException as exc:
        return _failed(push, str(exc))
    sent = GradePush.objects.filter(pk=push.pk, version=push.version).update(
        state=PushState.SENT, sent_at=timezone.now(), last_error=""
    )
    return "sent" if sent else "sent, but a newer score is pending"


def _failed(push: GradePush, message: str) -> str:
    logger.warning("LTI: grade push %s: %s", push.pk, message)
    GradePush.objects.filter(pk=push.pk).update(last_error=message[:2000])
    return f"failed: {message}"


def grade_push_sweep(older_than_s: float | None = None) -> int:
    """Queue every row still pending after ``older_than_s`` (settings.LTI_GRADE_RESEND_AFTER_S):
    what a failed send, a lost task or a restart left behind. Returns how many were queued."""
    wait = settings.LTI_GRADE_RESEND_AFTER_S if older_than_s is None else older_than_s
    cutoff = timezone.now() - timedelta(seconds=wait)
    ids = list(
        GradePush.objects.filter(state=PushState.PENDING, scored_at__lte=cutoff)
        .order_by("scored_at")
        .values_list("pk", flat=True)[:1000]
    )
    for push_id in ids:
        _enqueue_send(push_id)
    return len(ids)


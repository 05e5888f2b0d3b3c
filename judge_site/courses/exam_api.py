"""The exams API (issue 40), beside the courses API and with its auth and error shape
(``{"error": message}``; 404 for a course the caller is not a member of):

- ``POST /api/v1/courses/<id>/exams`` ``{"title", "kind", "opens_at", "closes_at",
  "duration_min", "freeze_min", "problems" | "assignment"}`` -> 201 ``{"id"}`` (an instructor)
- ``POST /api/v1/courses/<id>/exams/<exam>/start`` -> 201 (started now) or 200 (started
  before) ``{"exam", "started_at", "ends_at"}``; 403 before it opens or after it closes (a
  student of the course)
- ``GET /api/v1/courses/<id>/exams/<exam>/scoreboard`` -> 200 ``{"exam", "kind", "frozen",
  "freeze_at", "problems": [numbers], "rows": [{"rank", "username", "solved", "penalty",
  "problems": [{"solved", "rejected", "minutes", "pending"}]}]}``: a student gets the frozen
  board while the contest is frozen, an instructor the live one
- ``POST /api/v1/courses/<id>/exams/<exam>/unfreeze`` -> 200 ``{"exam", "unfrozen"}``
  (an instructor; ``unfrozen`` false when it was unfrozen before)

A Run or Submit (``POST /api/v1/submissions``) of a student outside their own window of an exam
covering the problem is refused with 403 ``{"error": "window: <why, and when>"}``.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.core.api import caller as _caller
from judge_site.core.api import checked_body as _body
from judge_site.core.api import error as _error
from judge_site.courses import exams as rules
from judge_site.courses import scoreboard, selectors, services
from judge_site.courses.api import _instructor
from judge_site.courses.models import Exam, Membership, Role


def _member_exam(
    user: AbstractBaseUser, course_id: int, exam_id: int
) -> tuple[Membership, Exam] | JsonResponse:
    membership = selectors.membership_of(user, course_id)
    exam = Exam.objects.filter(pk=exam_id, course_id=course_id).first() if membership else None
    if membership is None or exam is None:
        return _error("no such course or exam", 404)
    return membership, exam


@csrf_exempt
@require_http_methods(["POST"])
def exams(request: HttpRequest, course_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    membership = _instructor(user, course_id)
    if isinstance(membership, JsonResponse):
        return membership
    body = _body(request, "ExamCreate")
    if isinstance(body, JsonResponse):
        return body
    try:
        exam = rules.exam_create(user, membership.course, body)
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    return JsonResponse({"id": exam.pk}, status=201)


@csrf_exempt
@require_http_methods(["POST"])
def exam_start(request: HttpRequest, course_id: int, exam_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    found = _member_exam(user, course_id, exam_id)
    if isinstance(found, JsonResponse):
        return found
    _, exam = found
    now = timezone.now()
    try:
        seat, started = rules.exam_start(user, exam, now)
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    assert seat.started_at is not None
    end = rules.seat_end(exam, seat.started_at, seat.extra_min)
    return JsonResponse(
        {"exam": exam.pk, "started_at": seat.started_at.isoformat(), "ends_at": end.isoformat()},
        status=201 if started else 200,
    )


@require_GET
def exam_scoreboard(request: HttpRequest, course_id: int, exam_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    found = _member_exam(user, course_id, exam_id)
    if isinstance(found, JsonResponse):
        return found
    membership, exam = found
    board = scoreboard.scoreboard(exam, live=membership.role == Role.INSTRUCTOR)
    return JsonResponse({
        "exam": exam.pk, "kind": exam.kind, "frozen": board.frozen,
        "freeze_at": board.freeze_at.isoformat() if board.freeze_at else None,
        "problems": [p.number for p in board.problems],
        "rows": [{
            "rank": row.rank, "username": row.username, "solved": row.solved,
            "penalty": row.penalty,
            "problems": [{"solved": r.solved, "rejected": r.rejected, "minutes": r.minutes,
                          "pending": r.pending} for r in row.results],
        } for row in board.rows],
    })


@csrf_exempt
@require_http_methods(["POST"])
def exam_unfreeze(request: HttpRequest, course_id: int, exam_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    membership = _instructor(user, course_id)
    if isinstance(membership, JsonResponse):
        return membership
    exam = Exam.objects.filter(pk=exam_id, course_id=course_id).first()
    if exam is None:
        return _error("no such exam", 404)
    return JsonResponse({"exam": exam.pk, "unfrozen": rules.exam_unfreeze(user, exam)})

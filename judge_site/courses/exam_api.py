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
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.core.api import ApiCall, api_view
from judge_site.courses import exams as rules
from judge_site.courses import scoreboard
from judge_site.courses.api import instructor_of, member_of
from judge_site.courses.models import Exam, Membership, Role
from judge_site.courses.services import CourseError


def _member_exam(user: AbstractBaseUser, course_id: int, exam_id: int) -> tuple[Membership, Exam]:
    membership = member_of(user, course_id, "no such course or exam")
    exam = Exam.objects.filter(pk=exam_id, course_id=course_id).first()
    if exam is None:
        raise CourseError("no such course or exam", 404)
    return membership, exam


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def exams(call: ApiCall, course_id: int) -> JsonResponse:
    membership = instructor_of(call.user, course_id)
    exam = rules.exam_create(call.user, membership.course, call.body("ExamCreate"))
    return JsonResponse({"id": exam.pk}, status=201)


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def exam_start(call: ApiCall, course_id: int, exam_id: int) -> JsonResponse:
    _, exam = _member_exam(call.user, course_id, exam_id)
    seat, started = rules.exam_start(call.user, exam, timezone.now())
    assert seat.started_at is not None
    end = rules.seat_end(exam, seat.started_at, seat.extra_min)
    return JsonResponse(
        {"exam": exam.pk, "started_at": seat.started_at.isoformat(), "ends_at": end.isoformat()},
        status=201 if started else 200,
    )


@require_GET
@api_view()
def exam_scoreboard(call: ApiCall, course_id: int, exam_id: int) -> JsonResponse:
    membership, exam = _member_exam(call.user, course_id, exam_id)
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
@api_view()
def exam_unfreeze(call: ApiCall, course_id: int, exam_id: int) -> JsonResponse:
    instructor_of(call.user, course_id)
    exam = Exam.objects.filter(pk=exam_id, course_id=course_id).first()
    if exam is None:
        raise CourseError("no such exam", 404)
    return JsonResponse({"exam": exam.pk, "unfrozen": rules.exam_unfreeze(call.user, exam)})

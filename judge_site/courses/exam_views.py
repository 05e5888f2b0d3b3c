"""Exam pages: an exam of a course (a student's start, timer and problems; the scoreboard),
and the instructor's forms (create, extension, unfreeze). Rules: judge_site/courses/exams.py."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from judge_site.courses import exams, scoreboard, selectors, services
from judge_site.courses.models import Exam, ExamSeat, Membership, Role
from judge_site.courses.views import member_view


def _exam(membership: Membership, exam_id: int) -> Exam:
    exam = Exam.objects.select_related("course").filter(
        pk=exam_id, course_id=membership.course_id).first()
    if exam is None:
        raise Http404("no such exam")
    return exam


@member_view()
@require_GET
def exam_detail(request: HttpRequest, membership: Membership, exam_id: int) -> HttpResponse:
    exam = _exam(membership, exam_id)
    now = timezone.now()
    exams.exam_freeze(exam, now)
    is_instructor = membership.role == Role.INSTRUCTOR
    seat = None if is_instructor else ExamSeat.objects.filter(exam=exam, user=request.user).first()
    window = exams.window_of(exam, seat, now)
    problems = [i.problem for i in exam.items.select_related("problem").order_by("position", "id")]
    show_board = is_instructor or exam.kind == "contest"
    board = scoreboard.scoreboard(exam, live=is_instructor, now=now) if show_board else None
    seats = []
    if is_instructor:
        found = {s.user_id: s for s in ExamSeat.objects.filter(exam=exam)}
        for student in selectors.students_of(exam.course):
            seat_of = found.get(student.user_id)
            seats.append((student, seat_of, exams.window_of(exam, seat_of, now)))
    return render(request, "courses/exam_detail.html", {
        "course": exam.course, "exam": exam, "is_instructor": is_instructor,
        "window": window, "seat": seat,
        "problems": problems if is_instructor or window.running else [],
        "board": board, "seats": seats,
        "frozen_live": is_instructor and scoreboard.is_frozen(exam, now),
        "public_problems": exams.public_problems(exam, now) if is_instructor else [],
    })


@member_view()
@require_POST
def exam_start(request: HttpRequest, membership: Membership, exam_id: int) -> HttpResponse:
    exam = _exam(membership, exam_id)
    try:
        exams.exam_start(request.user, exam)
    except services.CourseError as exc:
        messages.error(request, exc.message)
    return redirect("courses:exam", course_id=membership.course_id, exam_id=exam.pk)


def _exam_form(request: HttpRequest) -> dict[str, Any]:
    names = ("title", "kind", "opens_at", "closes_at", "duration_min", "freeze_min", "assignment")
    data: dict[str, Any] = {k: request.POST.get(k, "") for k in names}
    data["problems"] = [p for p in request.POST.getlist("problems") if p]
    return data


@member_view(instructor=True)
@require_POST
def exam_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    zone = services.zone_named(request.POST.get("tz"))
    try:
        exam = exams.exam_create(request.user, membership.course, _exam_form(request), zone=zone)
    except services.CourseError as exc:
        messages.error(request, exc.message)
        return redirect("courses:manage", course_id=membership.course_id)
    messages.success(request, f"{exam.title} created.")
    return redirect("courses:exam", course_id=membership.course_id, exam_id=exam.pk)


@member_view(instructor=True)
@require_POST
def exam_extend(request: HttpRequest, membership: Membership, exam_id: int) -> HttpResponse:
    exam = _exam(membership, exam_id)
    user_id = request.POST.get("user_id", "")
    try:
        if not user_id.isdigit() or len(user_id) > 12:
            raise services.CourseError("student: choose one")
        seat = exams.exam_extend(request.user, exam, int(user_id), request.POST.get("extra_min"))
        messages.success(request, f"Extension saved: {seat.extra_min} extra minutes.")
    except services.CourseError as exc:
        messages.error(request, exc.message)
    return redirect("courses:exam", course_id=membership.course_id, exam_id=exam.pk)


@member_view(instructor=True)
@require_POST
def exam_unfreeze(request: HttpRequest, membership: Membership, exam_id: int) -> HttpResponse:
    exam = _exam(membership, exam_id)
    if exams.exam_unfreeze(request.user, exam):
        messages.success(request, "The scoreboard is live for everyone now.")
    else:
        messages.info(request, "The scoreboard was unfrozen before.")
    return redirect("courses:exam", course_id=membership.course_id, exam_id=exam.pk)

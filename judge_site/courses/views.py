"""Course pages: my courses (with the invitations waiting for me), a course (student's view),
managing it, its progress matrix with plots and statistics, its leaderboard per problem, a
student's submissions on a problem (those made after joining the course).

Anyone who is not a member gets 404 (the course's existence is not confirmed); a student gets
403 on the instructor's pages."""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from judge_site.catalog.models import Problem
from judge_site.core import inputs
from judge_site.courses import charts, course_statistics, grading, invitations, selectors, services
from judge_site.courses.models import Assignment, Membership, Role

View = Callable[..., HttpResponse]


def member_view(instructor: bool = False) -> Callable[[View], View]:
    """Pass the caller's membership of ``course_id`` to the view; 404 for non-members, 403 for
    a student on an instructor's page."""

    def decorate(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, course_id: int, *args: Any, **kwargs: Any) -> HttpResponse:
            membership = selectors.membership_of(request.user, course_id)
            if membership is None:
                raise Http404("no such course")
            if instructor and membership.role != Role.INSTRUCTOR:
                raise PermissionDenied("only the course's instructors may open this page")
            return view(request, membership, *args, **kwargs)

        return wrapped

    return decorate


def _refused(request: HttpRequest, exc: services.CourseError) -> None:
    messages.error(request, exc.message)


def _managed(request: HttpRequest, membership: Membership, action: Callable[[], str]) -> HttpResponse:
    """An instructor's action from the manage page: what it did (the message ``action``
    answers) or why it was refused, then back to the manage page."""
    try:
        messages.success(request, action())
    except services.CourseError as exc:
        _refused(request, exc)
    return redirect("courses:manage", course_id=membership.course_id)


@login_required
@require_GET
def course_list(request: HttpRequest) -> HttpResponse:
    return render(request, "courses/course_list.html", {
        "memberships": selectors.memberships_of(request.user),
        "invitations": selectors.invitations_pending_for(request.user),
        "can_create": services.can_create_course(request.user),
    })


def _ticked(request: HttpRequest, name: str) -> bool:
    return request.POST.get(name, "") in ("on", "1", "true", "yes")


@login_required
@require_POST
def course_create(request: HttpRequest) -> HttpResponse:
    try:
        course = services.course_create(request.user, request.POST.get("title", ""))
    except services.CourseError as exc:
        _refused(request, exc)
        return redirect("courses:list")
    return redirect("courses:manage", course_id=course.pk)


@login_required
@require_POST
def course_join(request: HttpRequest) -> HttpResponse:
    return _joined(request, lambda: services.course_join_by_code(
        request.user, request.POST.get("join_code", ""),
        share_email=_ticked(request, "share_email")))


def _joined(request: HttpRequest, join: Callable[[], tuple[Membership, bool]]) -> HttpResponse:
    """Join (by code or by accepting an invitation): the course's page, or back to the list
    with the refusal said."""
    try:
        membership, created = join()
    except services.CourseError as exc:
        _refused(request, exc)
        return redirect("courses:list")
    if created:
        messages.success(request, f"You joined {membership.course.title}.")
    return redirect("courses:detail", course_id=membership.course_id)


@login_required
@require_POST
def invitation_accept(request: HttpRequest, invitation_id: int) -> HttpResponse:
    return _joined(request, lambda: invitations.invitation_accept(
        request.user, invitation_id, share_email=_ticked(request, "share_email")))


@login_required
@require_POST
def invitation_decline(request: HttpRequest, invitation_id: int) -> HttpResponse:
    try:
        invitation = invitations.invitation_decline(request.user, invitation_id)
        messages.success(request, f"You declined the invitation to {invitation.course.title}.")
    except services.CourseError as exc:
        _refused(request, exc)
    return redirect("courses:list")


@member_view()
@require_POST
def email_sharing(request: HttpRequest, membership: Membership) -> HttpResponse:
    share = _ticked(request, "share_email")
    try:
        invitations.email_sharing_set(request.user, membership.course_id, share)
        messages.success(
            request,
            "Your instructors now see your e-mail address." if share
            else "Your instructors no longer see your account's e-mail address.",
        )
    except services.CourseError as exc:
        _refused(request, exc)
    return redirect("courses:detail", course_id=membership.course_id)


@member_view()
@require_GET
def course_detail(request: HttpRequest, membership: Membership) -> HttpResponse:
    course = membership.course
    now = timezone.now()
    is_instructor = membership.role == Role.INSTRUCTOR
    book = grading.gradebook(course, None if is_instructor else request.user.pk)
    mine = book.rows[0] if book.rows and not is_instructor else None
    cells = {(c.column.assignment.pk, c.column.problem.pk): c for c in mine.cells} if mine else {}
    sections = []
    for assignment in book.assignments:
        visible = is_instructor or assignment.opens_at <= now
        items = [(p, cells.get((assignment.pk, p.pk))) for p in assignment.problem_list]  # type: ignore[attr-defined]
        due = next((c.due for p, c in items if c is not None), assignment.due_at)
        late_end = assignment.late_until + (due - assignment.due_at) if assignment.late_until else None
        if assignment.opens_at > now:
            phase = "upcoming"
        elif now <= due:
            phase = "open"
        elif late_end is not None and now <= late_end:
            phase = "late"
        else:
            phase = "closed"
        credit = mine.totals.get(assignment.pk) if mine else None
        sections.append({
            "assignment": assignment,
            "phase": phase,
            "visible": visible,
            "items": items if visible else [],
            "due": due,
            "late_end": late_end,
            "extended": due != assignment.due_at,
            "credit": grading.fmt_credit(credit) if credit is not None else None,
        })
    return render(request, "courses/course_detail.html", {
        "course": course, "membership": membership, "is_instructor": is_instructor,
        "sections": sections, "mine": mine, "exams": list(course.exams.order_by("opens_at", "id")),
        "total": grading.fmt_credit(mine.total) if mine else None,
    })


@member_view(instructor=True)
@require_GET
def course_manage(request: HttpRequest, membership: Membership) -> HttpResponse:
    course = membership.course
    return render(request, "courses/course_manage.html", {
        "course": course,
        "assignments": selectors.assignments_of(course),
        "students": selectors.students_of(course),
        "invitations": selectors.invitations_of(course),
        "instructors": selectors.instructors_of(course),
        "extensions": sorted(selectors.extensions_of(course).values(), key=lambda e: e.due_at),
        "exams": list(course.exams.order_by("opens_at", "id")),
        "problems": Problem.objects.filter(published=True).order_by("number"),
        # Site staff may put unpublished problems in an exam (courses/exams.py).
        "exam_problems": (Problem.objects.all() if request.user.is_staff
                          else Problem.objects.filter(published=True)).order_by("number"),
    })


@member_view(instructor=True)
@require_POST
def course_rotate(request: HttpRequest, membership: Membership) -> HttpResponse:
    def rotate() -> str:
        code = services.course_rotate_code(request.user, membership.course)
        return f"New join code: {code}. The old one no longer works."

    return _managed(request, membership, rotate)


@member_view(instructor=True)
@require_POST
def roster_import(request: HttpRequest, membership: Membership) -> HttpResponse:
    upload = request.FILES.get("roster")
    text = request.POST.get("roster_text", "")
    if upload is not None:
        if upload.size and upload.size > services.MAX_ROSTER_BYTES:
            messages.error(request, "roster: the file is too large")
            return redirect("courses:manage", course_id=membership.course_id)
        text = upload.read().decode("utf-8", "replace")
    try:
        report = invitations.roster_import(request.user, membership.course, text)
    except services.CourseError as exc:
        _refused(request, exc)
        return redirect("courses:manage", course_id=membership.course_id)
    if not report.ok:
        bad = report.invalid
        rows = "; ".join(f"line {r.line}: {r.value} ({r.error})" for r in bad[:20])
        more = f" and {len(bad) - 20} more" if len(bad) > 20 else ""
        messages.error(request, f"Nobody invited. Rows that are not addresses: {rows}{more}")
    else:
        # The same words whether or not an address has an account (the import looks none up).
        messages.success(
            request,
            f"Invited {len(report.invited)} addresses"
            + (f"; {len(report.already)} were invited before" if report.already else "")
            + ". Each student joins when they accept the invitation on their Courses page.",
        )
    return redirect("courses:manage", course_id=membership.course_id)


@member_view(instructor=True)
@require_POST
def student_remove(request: HttpRequest, membership: Membership, user_id: int) -> HttpResponse:
    def remove() -> str:
        services.student_remove(request.user, membership.course, user_id)
        return "Student removed."

    return _managed(request, membership, remove)


@member_view(instructor=True)
@require_POST
def instructor_add(request: HttpRequest, membership: Membership) -> HttpResponse:
    name = request.POST.get("username", "").strip()
    usable = name and len(name) <= 150 and not inputs.text_problem(name)
    user = get_user_model().objects.filter(username=name, is_active=True).first() if usable else None
    if user is None:
        messages.error(request, f"No account named {name!r}.")
    else:
        services.instructor_add(request.user, membership.course, user)
        messages.success(request, f"{user.get_username()} is an instructor of this course.")
    return redirect("courses:manage", course_id=membership.course_id)


def _form_data(request: HttpRequest) -> dict[str, Any]:
    data: dict[str, Any] = {k: request.POST.get(k, "") for k in
                            ("title", "opens_at", "due_at", "late_until", "late_credit")}
    data["late_credit"] = data["late_credit"] or None
    data["problems"] = [p for p in request.POST.getlist("problems") if p] or (
        request.POST.get("problem_numbers", "").replace(",", " ").split()
    )
    return data


@member_view(instructor=True)
@require_POST
def assignment_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    zone = services.zone_named(request.POST.get("tz"))
    def create() -> str:
        services.assignment_create(request.user, membership.course, _form_data(request), zone=zone)
        return "Assignment created."

    return _managed(request, membership, create)


def _assignment(
    request: HttpRequest, membership: Membership, assignment_id: int
) -> tuple[Assignment, tzinfo]:
    """The course's assignment (404 for another's) and the zone the form's times are in."""
    assignment = Assignment.objects.filter(pk=assignment_id, course_id=membership.course_id).first()
    if assignment is None:
        raise Http404("no such assignment")
    return assignment, services.zone_named(request.POST.get("tz"))


@member_view(instructor=True)
@require_POST
def assignment_reschedule(request: HttpRequest, membership: Membership, assignment_id: int) -> HttpResponse:
    assignment, zone = _assignment(request, membership, assignment_id)
    data = {k: request.POST[k] for k in ("opens_at", "due_at", "late_until", "late_credit")
            if k in request.POST}

    def reschedule() -> str:
        changed = services.assignment_reschedule(request.user, assignment, data, zone=zone)
        return f"Changed: {', '.join(changed)}." if changed else "No change."

    return _managed(request, membership, reschedule)


@member_view(instructor=True)
@require_POST
def extension_grant(request: HttpRequest, membership: Membership, assignment_id: int) -> HttpResponse:
    assignment, zone = _assignment(request, membership, assignment_id)
    user_id = request.POST.get("user_id", "")

    def grant() -> str:
        if not user_id.isdigit():
            raise services.CourseError("student: choose one")
        services.extension_grant(
            request.user, assignment, int(user_id), request.POST.get("due_at", ""), zone=zone
        )
        return "Extension given."

    return _managed(request, membership, grant)


@member_view(instructor=True)
@require_GET
def course_progress(request: HttpRequest, membership: Membership) -> HttpResponse:
    course = membership.course
    book = grading.gradebook(course)
    return render(request, "courses/course_progress.html", {
        "course": course,
        "book": book,
        "stats": course_statistics.course_statistics(book),
        "solved_svg": charts.solved_per_day_svg(course_statistics.solved_per_day(book)),
        "verdicts_svg": charts.verdicts_svg(book.problems, course_statistics.verdicts_per_problem(book)),
    })


@member_view(instructor=True)
@require_GET
def student_submissions(
    request: HttpRequest, membership: Membership, user_id: int, number: int
) -> HttpResponse:
    student = selectors.students_of(membership.course).filter(user_id=user_id).first()
    problem = Problem.objects.filter(number=number).first()
    if student is None or problem is None:
        raise Http404("no such student or problem in this course")
    if not membership.course.assignments.filter(items__problem=problem).exists():
        raise Http404("no such problem in this course")
    return render(request, "courses/student_submissions.html", {
        "course": membership.course, "student": student.user, "problem": problem,
        "joined_at": student.joined_at,
        "submissions": selectors.student_submissions_for_course(student, problem),
    })


@member_view()
@require_GET
def course_leaderboard(request: HttpRequest, membership: Membership, number: int) -> HttpResponse:
    book = grading.gradebook(membership.course)
    problem = next((p for p in book.problems if p.number == number), None)
    if problem is None:
        raise Http404("no such problem in this course")
    now = timezone.now()
    if membership.role != Role.INSTRUCTOR and not any(
        a.opens_at <= now and problem in a.problem_list for a in book.assignments  # type: ignore[attr-defined]
    ):
        raise Http404("no such problem in this course")
    return render(request, "courses/course_leaderboard.html", {
        "course": membership.course, "problem": problem,
        "rows": course_statistics.course_leaderboard(book, problem),
    })

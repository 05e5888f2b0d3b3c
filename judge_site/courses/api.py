"""The courses API (exact, used by tooling outside the repository), with the token auth of the
rest of /api/v1 (``Authorization: Token <key>``, or the session with its CSRF check):

- ``POST /api/v1/courses`` ``{"title"}`` -> 201 ``{"id", "join_code"}`` (holders of
  courses.create_course; ``is_staff`` alone is not enough)
- ``POST /api/v1/courses/<id>/join`` ``{"join_code"}`` (and optionally ``"share_email"``: true
  lets the instructors see the account's e-mail) -> 201 (joined) or 200 (already a member)
  ``{"course", "role"}``
- ``POST /api/v1/courses/<id>/assignments`` ``{"title", "problems", "opens_at", "due_at",
  "late_until", "late_credit"}`` -> 201 ``{"id"}`` (an instructor of the course)
- ``GET /api/v1/courses/<id>/grades.csv`` (an instructor of the course)

Added by issue 36 (a roster invites; the student accepts):

- ``POST /api/v1/courses/<id>/roster`` ``{"roster": "<CSV text>"}`` -> 200 ``{"invited",
  "already_invited", "rows": [{"line", "value", "status"}]}``, ``status`` ``invited`` or
  ``already_invited`` whether or not an account has the address; 400 ``{"error", "rows"}`` with
  the rows that are not addresses (``status`` ``invalid`` and an ``error``), nobody invited
  (an instructor of the course)
- ``GET /api/v1/courses/invitations`` -> 200 ``{"invitations": [{"id", "course", "title",
  "invited_at"}]}``: the caller's pending invitations
- ``POST /api/v1/courses/invitations/<id>/accept`` ``{"share_email"}`` (optional, false) ->
  201 (joined) or 200 (already a member) ``{"course", "role"}``
- ``POST /api/v1/courses/invitations/<id>/decline`` -> 200 ``{"id", "status": "declined"}``

Errors are ``{"error": message}``: 400 bad input, 401 no or bad token, 403 a member who is not
an instructor on an instructor's route, 404 a course the caller is not a member of.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.core.api import caller as _caller
from judge_site.core.api import checked_body as _body
from judge_site.core.api import error as _error
from judge_site.courses import export, grading, invitations, scoreboard, selectors, services
from judge_site.courses.models import Course, Membership, Role


def _instructor(user: AbstractBaseUser, course_id: int) -> Membership | JsonResponse:
    membership = selectors.membership_of(user, course_id)
    if membership is None:
        return _error("no such course", 404)
    if membership.role != Role.INSTRUCTOR:
        return _error("only the course's instructors may do this", 403)
    return membership


@csrf_exempt  # CSRF is enforced in core.api.authenticate for cookie-based requests
@require_http_methods(["POST"])
def courses(request: HttpRequest) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    body = _body(request, "CourseCreate")
    if isinstance(body, JsonResponse):
        return body
    try:
        course = services.course_create(user, body.get("title"))
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    return JsonResponse({"id": course.pk, "join_code": course.join_code}, status=201)


@csrf_exempt
@require_http_methods(["POST"])
def course_join(request: HttpRequest, course_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    body = _body(request, "CourseJoin")
    if isinstance(body, JsonResponse):
        return body
    course = Course.objects.filter(pk=course_id).first()
    if course is None:
        return _error("no such course, or not its join code", 404)
    return _membership_reply(lambda: services.course_join(
        user, course, body["join_code"], share_email=body.get("share_email", False)))


def _membership_reply(join: Callable[[], tuple[Membership, bool]]) -> JsonResponse:
    """A joining's answer: the course and the role, 201 for a new membership, 200 for one
    that was there already; a refusal as the API's error."""
    try:
        membership, created = join()
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    return JsonResponse(
        {"course": membership.course_id, "role": membership.role}, status=201 if created else 200
    )


@csrf_exempt
@require_http_methods(["POST"])
def course_assignments(request: HttpRequest, course_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    membership = _instructor(user, course_id)
    if isinstance(membership, JsonResponse):
        return membership
    body = _body(request, "AssignmentCreate")
    if isinstance(body, JsonResponse):
        return body
    try:
        assignment = services.assignment_create(user, membership.course, body)
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    return JsonResponse({"id": assignment.pk}, status=201)


@csrf_exempt
@require_http_methods(["POST"])
def course_roster(request: HttpRequest, course_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    membership = _instructor(user, course_id)
    if isinstance(membership, JsonResponse):
        return membership
    # A roster of MAX_ROSTER_BYTES, written as a JSON string (quotes, escapes), fits.
    body = _body(request, "Roster", 2 * services.MAX_ROSTER_BYTES)
    if isinstance(body, JsonResponse):
        return body
    try:
        report = invitations.roster_import(user, membership.course, body["roster"])
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    if not report.ok:
        return JsonResponse({
            "error": f"roster: {len(report.invalid)} rows are not a username or an e-mail "
                     "address; nobody was invited",
            "rows": [
                {"line": r.line, "value": r.value, "status": r.status, "error": r.error}
                for r in report.invalid
            ],
        }, status=400)
    return JsonResponse({
        "invited": len(report.invited),
        "already_invited": len(report.already),
        "rows": [{"line": r.line, "value": r.value, "status": r.status} for r in report.rows],
    })


@require_GET
def my_invitations(request: HttpRequest) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    return JsonResponse({"invitations": [
        {"id": i.pk, "course": i.course_id, "title": i.course.title,
         "invited_at": i.invited_at.isoformat()}
        for i in selectors.invitations_pending_for(user)[:200]
    ]})


@csrf_exempt
@require_http_methods(["POST"])
def invitation_accept(request: HttpRequest, invitation_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    body = _body(request, "InvitationAccept")
    if isinstance(body, JsonResponse):
        return body
    return _membership_reply(lambda: invitations.invitation_accept(
        user, invitation_id, share_email=body.get("share_email", False)))


@csrf_exempt
@require_http_methods(["POST"])
def invitation_decline(request: HttpRequest, invitation_id: int) -> JsonResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    try:
        invitation = invitations.invitation_decline(user, invitation_id)
    except services.CourseError as exc:
        return _error(exc.message, exc.status)
    return JsonResponse({"id": invitation.pk, "status": invitation.status})


@require_GET
def course_grades(request: HttpRequest, course_id: int) -> HttpResponse:
    user = _caller(request)
    if isinstance(user, JsonResponse):
        return user
    membership = _instructor(user, course_id)
    if isinstance(membership, JsonResponse):
        return membership
    return grades_response(membership.course)


def grades_response(course: Course) -> HttpResponse:
    """The CSV as a download (the API's route and the matrix's button)."""
    boards = [scoreboard.scoreboard(exam, live=True) for exam in course.exams.order_by("opens_at", "id")]
    text = export.grades_csv(grading.gradebook(course), boards)
    response = HttpResponse(text.encode("utf-8"), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="course-{course.pk}-grades.csv"'
    return response

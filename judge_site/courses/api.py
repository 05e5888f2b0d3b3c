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
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.core.api import ApiCall, api_view
from judge_site.courses import export, grading, invitations, scoreboard, selectors, services
from judge_site.courses.models import Course, Membership, Role
from judge_site.courses.services import CourseError


def member_of(user: AbstractBaseUser, course_id: int, missing: str = "no such course") -> Membership:
    """The caller's membership of the course; 404 (``missing``) for a course they are not in."""
    membership = selectors.membership_of(user, course_id)
    if membership is None:
        raise CourseError(missing, 404)
    return membership


def instructor_of(user: AbstractBaseUser, course_id: int) -> Membership:
    """The caller's membership as an instructor of the course; 404 or 403 otherwise."""
    membership = member_of(user, course_id)
    if membership.role != Role.INSTRUCTOR:
        raise CourseError("only the course's instructors may do this", 403)
    return membership


def _membership_reply(join: Callable[[], tuple[Membership, bool]]) -> JsonResponse:
    """A joining's answer: the course and the role, 201 for a new membership, 200 for one
    that was there already."""
    membership, created = join()
    return JsonResponse(
        {"course": membership.course_id, "role": membership.role}, status=201 if created else 200
    )


# CSRF is enforced in core.api.authenticate for cookie-based requests.
@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def courses(call: ApiCall) -> JsonResponse:
    course = services.course_create(call.user, call.body("CourseCreate").get("title"))
    return JsonResponse({"id": course.pk, "join_code": course.join_code}, status=201)


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def course_join(call: ApiCall, course_id: int) -> JsonResponse:
    body = call.body("CourseJoin")
    course = Course.objects.filter(pk=course_id).first()
    if course is None:
        raise CourseError("no such course, or not its join code", 404)
    return _membership_reply(lambda: services.course_join(
        call.user, course, body["join_code"], share_email=body.get("share_email", False)))


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def course_assignments(call: ApiCall, course_id: int) -> JsonResponse:
    membership = instructor_of(call.user, course_id)
    body = call.body("AssignmentCreate")
    assignment = services.assignment_create(call.user, membership.course, body)
    return JsonResponse({"id": assignment.pk}, status=201)


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def course_roster(call: ApiCall, course_id: int) -> JsonResponse:
    membership = instructor_of(call.user, course_id)
    # A roster of MAX_ROSTER_BYTES, written as a JSON string (quotes, escapes), fits.
    body = call.body("Roster", 2 * services.MAX_ROSTER_BYTES)
    report = invitations.roster_import(call.user, membership.course, body["roster"])
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
@api_view()
def my_invitations(call: ApiCall) -> JsonResponse:
    return JsonResponse({"invitations": [
        {"id": i.pk, "course": i.course_id, "title": i.course.title,
         "invited_at": i.invited_at.isoformat()}
        for i in selectors.invitations_pending_for(call.user)[:200]
    ]})


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def invitation_accept(call: ApiCall, invitation_id: int) -> JsonResponse:
    body = call.body("InvitationAccept")
    return _membership_reply(lambda: invitations.invitation_accept(
        call.user, invitation_id, share_email=body.get("share_email", False)))


@csrf_exempt
@require_http_methods(["POST"])
@api_view()
def invitation_decline(call: ApiCall, invitation_id: int) -> JsonResponse:
    invitation = invitations.invitation_decline(call.user, invitation_id)
    return JsonResponse({"id": invitation.pk, "status": invitation.status})


@require_GET
@api_view()
def course_grades(call: ApiCall, course_id: int) -> HttpResponse:
    return grades_response(instructor_of(call.user, course_id).course)


def grades_response(course: Course) -> HttpResponse:
    """The CSV as a download (the API's route and the matrix's button)."""
    boards = [scoreboard.scoreboard(exam, live=True) for exam in course.exams.order_by("opens_at", "id")]
    text = export.grades_csv(grading.gradebook(course), boards)
    response = HttpResponse(text.encode("utf-8"), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="course-{course.pk}-grades.csv"'
    return response

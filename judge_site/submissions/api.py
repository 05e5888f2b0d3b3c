"""The submissions API (/api/v1/problems, /api/v1/submissions): token auth, the error type
(``ApiError``; a ``SubmissionError`` is one) and the body parsing of judge_site/core/api.py; the
schema in judge_site/core/openapi.py."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.catalog.models import Problem
from judge_site.catalog.selectors import problem_readable as readable
from judge_site.catalog.selectors import visible_problems
from judge_site.core import inputs
from judge_site.core.api import ApiCall, ApiError, api_view, authenticate, checked, parse_body
from judge_site.core.prepared import PreparedQuery
from judge_site.submissions import selectors, services


def _problem_from(value: Any) -> Problem | None:
    """The problem named by a number (int or ASCII digits) or a slug; None for anything else."""
    number = inputs.problem_number(value)
    if number is not None:
        return Problem.objects.filter(number=number).first()
    slug = inputs.problem_slug(value)
    if slug is not None:
        return Problem.objects.filter(slug=slug).first()
    return None


@require_GET
def problems(request: HttpRequest) -> JsonResponse:
    user = authenticate(request)
    if isinstance(user, JsonResponse):
        return user
    rows = _PROBLEMS.rows(bool(getattr(user, "is_staff", False)))
    return JsonResponse([dict(zip(_PROBLEM_KEYS, row, strict=True)) for row in rows], safe=False)


_PROBLEM_KEYS = ("number", "slug", "title", "difficulty")
_PROBLEMS = PreparedQuery(
    lambda staff: visible_problems(staff).order_by("number").values_list(*_PROBLEM_KEYS)
)


# CSRF is enforced in core.api.authenticate for cookie-based requests.
@csrf_exempt
@require_http_methods(["POST"])
@api_view(limited=False)  # services' throttles: per minute, and in flight
def submissions(call: ApiCall) -> JsonResponse:
    try:
        raw = call.request.body
    except RequestDataTooBig:
        raise ApiError(
            f"code: the request is too large (limit {settings.JUDGE_MAX_CODE_BYTES} bytes of code)"
        ) from None
    body = parse_body(raw)
    if not isinstance(body, JsonResponse):
        body = checked(body, "SubmissionCreate")  # field types, required fields, the mode
    if isinstance(body, JsonResponse):
        return body
    problem = _problem_from(body["problem"])
    if problem is None or not readable(call.user, problem):  # an exam's unpublished one: inside
        shown = inputs.shorten(body["problem"])
        raise ApiError(
            f"problem: no such problem {shown} (a number or a slug)", 404 if problem else 400
        )
    submission = services.submission_create(  # a SubmissionError is answered as the API's error
        call.user, problem, body["code"], body.get("mode", "submit"),
        address=inputs.client_ip(call.request), script=body.get("script"),
    )
    return JsonResponse({"id": submission.pk, "status": submission.status}, status=201)


@require_GET
@api_view()
def submission_detail(call: ApiCall, submission_id: int) -> JsonResponse:
    # One's own submission (the page's poll during a judging) in one compiled query; others'
    # (staff, instructors) as the submission's page finds them.
    submission = selectors.own_submission(call.user, submission_id) or selectors.submission_get_for(
        call.user, submission_id
    )
    if submission is None:
        raise ApiError("no such submission", 404)
    return JsonResponse(selectors.submission_to_json(submission, call.user))

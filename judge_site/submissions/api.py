"""The JSON API (/api/v1/...). Token auth: ``Authorization: Token <key>``.

Requests carrying a token are CSRF-exempt (no cookies are involved); requests that rely on the
session cookie instead (the site's own pages polling a submission) keep Django's CSRF check for
anything that is not a safe method.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.accounts.models import ApiToken
from judge_site.catalog.models import Problem
from judge_site.catalog.selectors import visible_problems
from judge_site.core import requests
from judge_site.core.prepared import PreparedQuery
from judge_site.submissions import selectors, services

# Keys are hex (ApiToken.generate_key); anything else cannot match and never reaches a query.
_TOKEN_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _error(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _token_user(request: HttpRequest) -> AbstractBaseUser | None | bool:
    """The token's user; None when no token header; False when the token is bad."""
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, key = header.partition(" ")
    key = key.strip()
    if scheme.lower() != "token" or not _TOKEN_KEY.fullmatch(key):
        return False
    user = _user_of_token(key)
    if user is None or not user.is_active:
        return False
    return user


@functools.cache
def _user_fields() -> list[str]:
    return [f.attname for f in get_user_model()._meta.concrete_fields]


# Every API call asks: compiled once (judge_site/core/prepared.py).
_TOKEN_USER = PreparedQuery(
    lambda key: ApiToken.objects.filter(key=key)
    .order_by("pk")
    .values_list(*(f"user__{name}" for name in _user_fields()))[:1],
    key=str,
)


def _user_of_token(key: str) -> AbstractBaseUser | None:
    row = _TOKEN_USER.first(key=key)
    return None if row is None else get_user_model().from_db("default", _user_fields(), row)


def _authenticate(request: HttpRequest) -> AbstractBaseUser | AnonymousUser | JsonResponse:
    """The caller, or the error response to return."""
    user = _token_user(request)
    if user is False:
        return _error("invalid token (header: Authorization: Token <key>)", 401)
    if user is not None:
        return user  # type: ignore[return-value]
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        rejected = CsrfViewMiddleware(lambda r: HttpResponse()).process_view(
            request, lambda r: HttpResponse(), (), {}
        )
        if rejected is not None:
            return _error("CSRF check failed: send a token or reload the page", 403)
    return request.user


def _problem_from(value: Any) -> Problem | None:
    """The problem named by a number (int or ASCII digits) or a slug; None for anything else."""
    number = requests.problem_number(value)
    if number is not None:
        return Problem.objects.filter(number=number).first()
    slug = requests.problem_slug(value)
    if slug is not None:
        return Problem.objects.filter(slug=slug).first()
    return None


@require_GET
def problems(request: HttpRequest) -> JsonResponse:
    user = _authenticate(request)
    if isinstance(user, JsonResponse):
        return user
    rows = _PROBLEMS.rows(bool(getattr(user, "is_staff", False)))
    return JsonResponse([dict(zip(_PROBLEM_KEYS, row, strict=True)) for row in rows], safe=False)


_PROBLEM_KEYS = ("number", "slug", "title", "difficulty")
_PROBLEMS = PreparedQuery(
    lambda staff: visible_problems(staff).order_by("number").values_list(*_PROBLEM_KEYS)
)


@csrf_exempt  # CSRF is enforced in _authenticate for cookie-based requests
@require_http_methods(["POST"])
def submissions(request: HttpRequest) -> JsonResponse:
    user = _authenticate(request)
    if isinstance(user, JsonResponse):
        return user
    if not user.is_authenticated:
        return _error("authentication required (header: Authorization: Token <key>)", 401)
    try:
        body = json.loads(request.body or b"{}")
    except RequestDataTooBig:
        return _error(
            f"code: the request is too large (limit {settings.JUDGE_MAX_CODE_BYTES} bytes of code)"
        )
    except RecursionError:
        return _error("body: not valid JSON (nested too deeply)")
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer of 4300+ digits
        detail = "an integer with too many digits" if "digits" in str(exc) else "not valid JSON"
        return _error(f"body: {detail}")
    if not isinstance(body, dict):
        return _error("body: expected a JSON object")
    if "problem" not in body:
        return _error("problem: missing (a number or a slug)")
    problem = _problem_from(body["problem"])
    if problem is None or (not problem.published and not user.is_staff):
        shown = requests.shorten(body["problem"])
        return _error(
            f"problem: no such problem {shown} (a number or a slug)", 404 if problem else 400
        )
    code = body.get("code")
    if not isinstance(code, str):
        return _error("code: missing or not a string")
    mode = body.get("mode", "submit")
    if not isinstance(mode, str):
        return _error("mode: 'run', 'submit' or 'scratch'")
    script = body.get("script")
    if script is not None and not isinstance(script, str):
        return _error("script: not a string (the lines a scratch run adds after your code)")
    try:
        submission = services.submission_create(
            user, problem, code, mode, address=requests.client_ip(request), script=script
        )
    except services.SubmissionError as exc:
        return _error(f"{exc.field}: {exc.message}", exc.status)
    return JsonResponse({"id": submission.pk, "status": submission.status}, status=201)


@require_GET
def submission_detail(request: HttpRequest, submission_id: int) -> JsonResponse:
    user = _authenticate(request)
    if isinstance(user, JsonResponse):
        return user
    if not user.is_authenticated:
        return _error("authentication required (header: Authorization: Token <key>)", 401)
    # One's own submission (the page's poll during a judging) in one compiled query; others'
    # (staff, instructors) as the submission's page finds them.
    submission = selectors.own_submission(user, submission_id) or selectors.submission_get_for(
        user, submission_id
    )
    if submission is None:
        return _error("no such submission", 404)
    return JsonResponse(selectors.submission_to_json(submission, user))

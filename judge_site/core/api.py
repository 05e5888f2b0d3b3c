"""What every JSON API view (/api/v1/...) shares: token auth, the one error shape, reading a
JSON body, and the per-user limit on write calls.

- Auth: ``Authorization: Token <key>`` (or ``Bearer <key>``). Requests carrying a token are
  CSRF-exempt (no cookies are involved); requests that rely on the session cookie instead (the
  site's own pages polling a submission) keep Django's CSRF check for anything that is not a
  safe method.
- Errors: ``{"error": "<field>: <what is wrong and what to do>"}`` with the HTTP status (400
  bad input, 401 no or bad token, 403 not allowed, 404 not found or not yours, 429 too many
  calls, with ``Retry-After``), sometimes with more keys beside ``error`` (a roster's rows).
- The schema of every path and body: judge_site/core/openapi.py.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware

from judge_site.accounts.tokens import user_for_key

AUTH_HINT = "header: Authorization: Token <key>; make one at /accounts/token/"
MAX_BODY_BYTES = 64 * 1024
_SAFE = ("GET", "HEAD", "OPTIONS")


def error(message: str, status: int = 400, **extra: Any) -> JsonResponse:
    """The API's one error shape."""
    return JsonResponse({"error": message, **extra}, status=status)


def _token_user(request: HttpRequest) -> AbstractBaseUser | None | bool:
    """The token's user; None when no token header; False when the token is bad."""
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, key = header.partition(" ")
    if scheme.lower() not in ("token", "bearer"):
        return False
    user = user_for_key(key.strip())
    return False if user is None else user


def authenticate(request: HttpRequest) -> AbstractBaseUser | AnonymousUser | JsonResponse:
    """The caller (anonymous without a token or a session), or the error response to return."""
    user = _token_user(request)
    if user is False:
        return error(f"invalid token: wrong, revoked or malformed ({AUTH_HINT})", 401)
    if user is not None:
        return user  # type: ignore[return-value]
    if request.method not in _SAFE:
        rejected = CsrfViewMiddleware(lambda r: HttpResponse()).process_view(
            request, lambda r: HttpResponse(), (), {}
        )
        if rejected is not None:
            return error("CSRF check failed: send a token or reload the page", 403)
    return request.user


def caller(request: HttpRequest) -> AbstractBaseUser | JsonResponse:
    """The authenticated caller, or 401 (or the error ``authenticate`` gave)."""
    user = authenticate(request)
    if isinstance(user, JsonResponse):
        return user
    if not user.is_authenticated:
        return error(f"authentication required ({AUTH_HINT})", 401)
    return user  # type: ignore[return-value]


def read_body(request: HttpRequest, limit: int = MAX_BODY_BYTES) -> dict[str, Any] | JsonResponse:
    """The request's JSON object (``{}`` for an empty body), or a 400 saying what is wrong."""
    if len(request.body or b"") > limit:
        return error(f"body: at most {limit // 1024} KiB")
    return parse_body(request.body)


def parse_body(raw: bytes | None) -> dict[str, Any] | JsonResponse:
    try:
        body = json.loads(raw or b"{}")
    except RecursionError:
        return error("body: not valid JSON (nested too deeply)")
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer of 4300+ digits
        detail = "an integer with too many digits" if "digits" in str(exc) else "not valid JSON"
        return error(f"body: {detail}")
    if not isinstance(body, dict):
        return error("body: expected a JSON object")
    return body

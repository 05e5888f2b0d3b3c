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
- A view written as ``@api_view() def v(call: ApiCall, ...)`` gets the authenticated caller
  and reads its body with ``call.body(schema)``; whatever it raises as ``ApiError`` (or a
  subclass: an app's own refusals) is answered in the one error shape, in this one place.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware

from judge_site.core import inputs

AUTH_HINT = "header: Authorization: Token <key>; make one at /accounts/token/"
MAX_BODY_BYTES = 64 * 1024
logger = logging.getLogger(__name__)
_SAFE = ("GET", "HEAD", "OPTIONS")
# Who holds an API key: the accounts app registers its lookup here in its AppConfig.ready()
# (apps import one way: core knows no app above it).
TokenReader = Callable[[str], "AbstractBaseUser | None"]
_token_readers: list[TokenReader] = []


def register_token_reader(reader: TokenReader) -> None:
    if reader not in _token_readers:
        _token_readers.append(reader)


def user_for_key(key: str) -> AbstractBaseUser | None:
    """The active user whose API key this is, or None (asked of every registered reader)."""
    for reader in _token_readers:
        user = reader(key)
        if user is not None:
            return user
    return None


def error(message: str, status: int = 400, **extra: Any) -> JsonResponse:
    """The API's one error shape."""
    return JsonResponse({"error": message, **extra}, status=status)


class ApiError(Exception):
    """A refused call: ``message`` says what is wrong and what to do, ``status`` the HTTP status;
    ``api_view`` answers it with ``error``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status

    def response(self) -> JsonResponse:
        return error(self.message, self.status)


class _Answered(ApiError):
    """A refusal whose response is already made (a bad body, read by ``checked_body``)."""

    def __init__(self, answer: JsonResponse) -> None:
        super().__init__("", answer.status_code)
        self.answer = answer

    def response(self) -> JsonResponse:
        return self.answer


@dataclass(frozen=True)
class ApiCall:
    """What an ``api_view`` gets: the request and its authenticated caller."""

    request: HttpRequest
    user: AbstractBaseUser

    def body(self, schema_name: str, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
        """The request's JSON object checked against its schema; a bad one raises the 400."""
        body = checked_body(self.request, schema_name, limit)
        if isinstance(body, JsonResponse):
            raise _Answered(body)
        return body


def api_view(*, limited: bool = True) -> Callable[[Callable[..., HttpResponse]],
                                                   Callable[..., HttpResponse]]:
    """Call the view as ``view(ApiCall, **url_kwargs)`` for an authenticated caller (401, 403
    or 429 from ``caller`` otherwise); an ``ApiError`` it raises becomes the API's error."""

    def wrap(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def run(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            user = caller(request, limited=limited)
            if isinstance(user, JsonResponse):
                return user
            try:
                return view(ApiCall(request, user), *args, **kwargs)
            except ApiError as refused:
                return refused.response()

        return run

    return wrap


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


def caller(request: HttpRequest, *, limited: bool = True) -> AbstractBaseUser | JsonResponse:
    """The authenticated caller, or 401 (or the error ``authenticate`` gave). A write call
    counts towards the caller's write limit (429 beyond it) unless ``limited`` is False (an
    endpoint with throttles of its own: submissions)."""
    user = authenticate(request)
    if isinstance(user, JsonResponse):
        return user
    if not user.is_authenticated:
        return error(f"authentication required ({AUTH_HINT})", 401)
    if limited and request.method not in _SAFE:
        refused = write_limited(user)  # type: ignore[arg-type]
        if refused is not None:
            return refused
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


# --- request bodies, checked against the OpenAPI document ------------------------------------

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),),
}


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` fits a request field's schema (the subset the document's request
    bodies use: type, enum, anyOf, items)."""
    if "anyOf" in schema:
        return any(_fits(value, option) for option in schema["anyOf"])
    if "enum" in schema and value not in schema["enum"]:
        return False
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if isinstance(value, bool) and "boolean" not in kinds:
            return False  # JSON's true is no integer
        if not any(isinstance(value, _JSON_TYPES[kind]) for kind in kinds):
            return False
    if isinstance(value, list) and "items" in schema:
        return all(_fits(item, schema["items"]) for item in value)
    return True


def body_error(body: dict[str, Any], schema_name: str) -> str | None:
    """The first field of ``body`` (in the document's order) that is missing or does not fit
    the request schema ``schema_name``, as the API's message; None when all fit."""
    from judge_site.core.openapi_schemas import SCHEMAS  # the document imports the apps' models

    schema = SCHEMAS[schema_name]
    required = set(schema.get("required", []))
    for name, field in schema["properties"].items():
        if name not in body:
            if name in required:
                return str(field.get("x-error") or f"{name}: missing")
            continue
        if not _fits(body[name], field):
            from judge_site.core.api_docs import type_text

            given = body[name]
            shown = f", not {inputs.shorten(given)}" if "enum" in field and isinstance(
                given, str) else ""
            return str(field.get("x-error") or f"{name}: expected {type_text(field)}") + shown
    return None


def checked_body(
    request: HttpRequest, schema_name: str, limit: int = MAX_BODY_BYTES
) -> dict[str, Any] | JsonResponse:
    """The request's JSON object checked against its schema, or the 400 naming the field."""
    body = read_body(request, limit)
    if isinstance(body, JsonResponse):
        return body
    return checked(body, schema_name)


def checked(body: dict[str, Any], schema_name: str) -> dict[str, Any] | JsonResponse:
    problem = body_error(body, schema_name)
    return body if problem is None else error(problem)


# --- the per-user limit on write calls ---------------------------------------------------------


def write_limited(user: AbstractBaseUser) -> JsonResponse | None:
    """429 (with Retry-After) once ``user`` made JUDGE_API_WRITES_PER_MINUTE write calls this
    minute; None otherwise. Counted in the cache (Redis); without it, nothing is limited."""
    limit = int(settings.JUDGE_API_WRITES_PER_MINUTE)
    if limit <= 0:
        return None
    now = time.time()
    window = int(now // 60)
    key = f"api-writes:{user.pk}:{window}"
    try:
        cache.add(key, 0, timeout=120)
        count = cache.incr(key)
    except Exception:  # the cache is down: answering beats refusing everyone
        logger.warning("API write limit not counted: the cache did not answer", exc_info=True)
        return None
    if count <= limit:
        return None
    wait = max(1, int((window + 1) * 60 - now) + 1)
    response = error(
        f"rate: at most {limit} API writes a minute; wait {wait} s and try again", 429
    )
    response["Retry-After"] = str(wait)
    return response

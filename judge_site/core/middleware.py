"""Site-wide request/response rules that no single view should have to remember.

- ``ApiResponseMiddleware``: under /api/, every answer is JSON and never cached. Errors made
  outside the API's own views (404 of an unknown path, 405 of a wrong method, a CSRF refusal,
  a lockout, an unexpected 500) get the API's ``{"error": "..."}`` body, keeping their status
  and headers (Allow, Retry-After).
- ``QueryStringMiddleware``: a query string holding a NUL character is refused with 400 before
  any view passes it to the database (Postgres refuses NUL in text, which would be a 500).
- ``RetryAfterMiddleware``: every 429 says when to come back (``Retry-After``, seconds); a view
  that knows better (the log-in lockout, the sign-up cap) sets its own.
- ``PrivatePagesMiddleware``: an answer to a logged-in user is ``Cache-Control: private,
  no-store`` (their code, verdicts, token, staff pages): no shared cache or browser history keeps
  it. Anonymous pages and static files (served earlier, by WhiteNoise) are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import add_never_cache_headers, patch_cache_control

API_PREFIX = "/api/"
Handler = Callable[[HttpRequest], HttpResponse]


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower()
    except ValueError:
        return "error"


_MESSAGES = {
    401: "authentication required (header: Authorization: Token <key>)",
    403: "forbidden",
    404: "no such API endpoint (the reference: /api/v1/docs/)",
    429: "too many requests: wait and try again",
    500: "internal error: the site failed to answer; try again later",
}


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


class ApiResponseMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not is_api(request):
            return response
        if response.status_code >= 400 and not _is_json(response):
            response = self._as_json(request, response)
        add_never_cache_headers(response)
        return response

    @staticmethod
    def _as_json(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        status = response.status_code
        if status == 405:
            allowed = response.get("Allow", "")
            message = f"method {request.method} not allowed here; use {allowed or 'another'}"
        else:
            message = _MESSAGES.get(status, _reason(status))
        replacement = JsonResponse({"error": message}, status=status)
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                replacement[header] = response[header]
        return replacement


class QueryStringMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.META.get("QUERY_STRING", "") or any(
            "\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()
        ):
            message = "query string: NUL characters are not allowed"
            if is_api(request):
                return JsonResponse({"error": message}, status=400)
            return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


# A 429 without a Retry-After of its own: the submission throttle counts per minute, and the
# caps on judgings in flight free up within about as long.
DEFAULT_RETRY_AFTER_S = 60


class RetryAfterMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 429 and not response.has_header("Retry-After"):
            response["Retry-After"] = str(DEFAULT_RETRY_AFTER_S)
        return response


def private(response: HttpResponse) -> HttpResponse:
    """Mark ``response`` as private data: no cache may store it."""
    patch_cache_control(response, private=True, no_store=True)
    return response


class PrivatePagesMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            private(response)
        return response

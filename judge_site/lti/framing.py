"""Who may frame the LTI pages: the registered platforms (CSP frame-ancestors), on these
responses only; every other page of the site keeps ``frame-ancestors 'none'``."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse
from lti_tool.models import LtiRegistration


def origin_of(url: str) -> str | None:
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def platform_origins() -> list[str]:
    """The origins of the active registrations' issuers and authorization URLs (the LMS's own
    host), plus LTI_FRAME_ANCESTORS (a platform that frames from yet another host)."""
    found: set[str] = set(settings.LTI_FRAME_ANCESTORS)
    for issuer, auth_url in LtiRegistration.objects.active().values_list("issuer", "auth_url"):
        for url in (issuer, auth_url):
            origin = origin_of(url)
            if origin:
                found.add(origin)
    return sorted(found)


def allow_platforms(response: HttpResponse, form_target: str | None = None) -> HttpResponse:
    """``response`` may be framed by the registered platforms (and ``form_target``'s origin is
    a place its form may post to: the deep linking return URL)."""
    replace: dict[str, list[str]] = {"frame-ancestors": ["'self'", *platform_origins()]}
    target = origin_of(form_target or "")
    if target:
        replace["form-action"] = ["'self'", target]
    # django-csp reads this attribute of the response (its csp_replace decorator sets it).
    response._csp_replace = replace  # type: ignore[attr-defined]
    return response

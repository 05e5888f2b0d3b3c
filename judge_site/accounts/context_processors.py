"""Template context: how sign-up works on this site (the menu hides "Sign up" when closed)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def signup(request: HttpRequest) -> dict[str, str]:
    return {"signup_mode": settings.JUDGE_SIGNUP}

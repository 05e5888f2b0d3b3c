"""Sign-up. Log in/out and password change are Django's own views (see urls.py); django-axes
throttles the log-in (settings: AXES_*, and the rules in judge_site/accounts/lockout.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from judge_site.accounts import email_views, mail, services
from judge_site.accounts.forms import SignupForm
from judge_site.core.inputs import client_ip


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account with a username and password, then log the new user in."""
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    address = client_ip(request)
    try:
        services.signup_check(address)  # early, for the page; checked again under the lock
        form = SignupForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            user = services.signup_create(
                form, address, form.cleaned_data.get("invite_code", "")
            )
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            _confirm_address(request, user)
            return redirect(settings.LOGIN_REDIRECT_URL)
    except services.SignupRefused as exc:
        response = render(
            request, "registration/signup_refused.html", {"reason": exc.message}, status=exc.status
        )
        if exc.retry_after_s is not None:
            response["Retry-After"] = str(exc.retry_after_s)
        return response
    return render(request, "registration/signup.html", {"form": form})


def _confirm_address(request: HttpRequest, user: Any) -> None:
    """With JUDGE_EMAIL_VERIFY, mail the new account's address its signed link."""
    if not (settings.JUDGE_EMAIL_VERIFY and mail.mail_enabled() and user.email):
        return
    refused = email_views.verification_send(request, user)
    messages.info(
        request,
        refused or f"To confirm your address, open the link we sent to {user.email} "
        "(until then, no password reset link is mailed to it).",
    )


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: object = None
) -> HttpResponse:
    """django-axes' answer to a locked-out log-in (AXES_LOCKOUT_CALLABLE): 429 with a page that
    says how long to wait and what to do (the rules: judge_site/accounts/lockout.py)."""
    cooloff_s = round(settings.AXES_COOLOFF_TIME.total_seconds())
    response = render(
        request,
        "registration/locked_out.html",
        {
            "failure_limit": settings.AXES_FAILURE_LIMIT,
            "username_limit": settings.JUDGE_LOGIN_USERNAME_FAILURE_LIMIT,
            "by_username": getattr(request, "axes_locked_by_username", False),
            "cooloff_min": round(cooloff_s / 60),
        },
        status=429,
    )
    response["Retry-After"] = str(cooloff_s)  # at most: the lock ends a cool-off after its start
    return response

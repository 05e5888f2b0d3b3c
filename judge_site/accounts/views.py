"""Sign-up. Log in/out and password change are Django's own views (see urls.py); django-axes
throttles the log-in (settings: AXES_*)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from judge_site.accounts import services
from judge_site.accounts.forms import SignupForm
from judge_site.core.requests import client_ip


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account with a username and password, then log the new user in."""
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    address = client_ip(request)
    try:
        services.signup_check(address)
    except services.SignupRefused as exc:
        return render(
            request, "registration/signup_refused.html", {"reason": exc.message}, status=exc.status
        )
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            user = form.save()
            services.signup_record(user, address, form.cleaned_data.get("invite_code", ""))
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "registration/signup.html", {"form": form})


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: object = None
) -> HttpResponse:
    """django-axes' answer to a locked-out log-in (AXES_LOCKOUT_CALLABLE): 429 with a page that
    says how long to wait and what to do."""
    cooloff_min = round(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    return render(
        request,
        "registration/locked_out.html",
        {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_min": cooloff_min},
        status=429,
    )

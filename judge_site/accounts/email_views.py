"""The account's e-mail page (address, confirmation, rejudge notices) and the link that
confirms an address (judge_site/accounts/verification.py)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from judge_site.accounts import mail, verification
from judge_site.accounts.models import MailKind
from judge_site.core.inputs import client_ip


class EmailSettingsForm(forms.Form):
    email = forms.EmailField(
        label="E-mail address", required=False,
        help_text="For password reset links and rejudge notices; never shown to others.",
    )
    rejudge_notices = forms.BooleanField(
        label="Mail me when a rejudge changes the verdict of one of my submissions",
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].required = settings.JUDGE_EMAIL_VERIFY


def verification_send(request: HttpRequest, user: Any) -> str | None:
    """Queue the signed link to ``user``'s address; None when queued, else why not (the
    throttle, shared with password resets)."""
    try:
        mail.request_record(str(MailKind.VERIFY), user.email, client_ip(request))
    except mail.Throttled as exc:
        return exc.message
    mail.send_later("send_verification", user.pk, request.get_host(), request.is_secure())
    return None


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def email_settings(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
    profile = mail.profile_of(user)
    verify = settings.JUDGE_EMAIL_VERIFY and mail.mail_enabled()
    if request.method == "POST" and request.POST.get("action") == "resend":
        if verify and user.email and not mail.address_verified(user):
            refused = verification_send(request, user)
            if refused:
                messages.error(request, refused)
            else:
                messages.success(request, f"A new link was sent to {user.email}.")
        return redirect("email_settings")
    initial = {"email": user.email, "rejudge_notices": profile.rejudge_notices}
    form = EmailSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        changed = mail.normalized(email) != mail.normalized(user.email)
        user.email = email
        user.save(update_fields=["email"])
        profile.rejudge_notices = form.cleaned_data["rejudge_notices"]
        profile.save(update_fields=["rejudge_notices"])
        messages.success(request, "Your e-mail settings were saved.")
        if changed and email and verify:
            refused = verification_send(request, user)
            messages.info(request, refused or f"To confirm it, open the link sent to {email}.")
        return redirect("email_settings")
    return render(
        request,
        "accounts/email_settings.html",
        {
            "form": form,
            "mail_enabled": mail.mail_enabled(),
            "verify": verify,
            "verified": mail.address_verified(user),
        },
    )


@never_cache
@require_GET
def email_verify(request: HttpRequest, token: str) -> HttpResponse:
    user, problem = verification.link_open(token)
    return render(
        request,
        "accounts/email_verified.html",
        {"confirmed": user is not None, "problem": problem, "email": getattr(user, "email", "")},
        status=200 if user is not None else 400,
    )

"""Password reset by e-mail: Django's views at Django's paths (urls.py), with three rules of ours.

1. No enumeration: the request page answers every well-formed address the same way (a redirect
   to the "check your mail" page) after the same work (a counted request, a queued task); the
   task, on the maintenance worker, decides whether an account gets mail.
2. A throttle (judge_site/accounts/mail.py): JUDGE_RESETS_PER_EMAIL per address asked for and
   JUDGE_RESETS_PER_CLIENT per client address within JUDGE_RESET_WINDOW_MIN; then 429.
3. With JUDGE_EMAIL_VERIFY, only a confirmed address gets a reset link. With no EMAIL_HOST the
   pages say the site sends no mail and whom to ask instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render

from judge_site.accounts import mail
from judge_site.accounts.models import MailKind
from judge_site.core.inputs import client_ip

SUBJECT = "registration/reset_subject.txt"
BODY = "registration/reset_email.txt"


class ResetForm(PasswordResetForm):
    def get_users(self, email: str) -> Iterator[Any]:
        """Django's (active accounts with a usable password and this address), less those
        whose address may not be mailed (unconfirmed under JUDGE_EMAIL_VERIFY)."""
        return (user for user in super().get_users(email) if mail.address_usable(user))


def reset_mail_send(email: str, domain: str, use_https: bool) -> None:
    """Mail a reset link to each account of ``email`` that may get one (the task's body).
    Django's form sends one mail per account and logs a failure instead of raising."""
    form = ResetForm({"email": email})
    if form.is_valid():
        form.save(
            domain_override=domain,
            use_https=use_https,
            subject_template_name=SUBJECT,
            email_template_name=BODY,
        )


def mail_off(request: HttpRequest) -> HttpResponse:
    """The page that says this site sends no mail (no EMAIL_HOST) and what to do instead."""
    return render(
        request, "registration/mail_off.html", status=404 if request.method == "POST" else 200
    )


class ResetRequestView(auth_views.PasswordResetView):
    template_name = "registration/reset_form.html"
    form_class = ResetForm

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not mail.mail_enabled():
            return mail_off(request)
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        email = form.cleaned_data["email"]
        try:
            mail.request_record(str(MailKind.RESET), email, client_ip(self.request))
        except mail.Throttled as exc:
            response = render(
                self.request, "registration/reset_throttled.html", {"reason": exc.message},
                status=429,
            )
            response["Retry-After"] = str(exc.retry_after_s)
            return response
        mail.send_later(
            "send_password_reset", email, self.request.get_host(), self.request.is_secure()
        )
        return super(auth_views.PasswordResetView, self).form_valid(form)  # the redirect only


class ResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "registration/reset_done.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        days = max(1, round(settings.PASSWORD_RESET_TIMEOUT / 86400))
        return {**super().get_context_data(**kwargs), "timeout_days": days}


class ResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "registration/reset_confirm.html"


class ResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "registration/reset_complete.html"

"""The mail telling a student that a rejudge changed verdicts of theirs.

staff (judge_site/staff/services/rejudge_notices.py) calls ``rejudge_notice_later`` once per
student when a rejudge finishes, with that student's changed Submits (never a Run); one mail
per student per rejudge lists them all. It is sent on the maintenance worker; a refusal by the
mail server is recorded on the RejudgeNotice row, logged, and retried by the task; a judging
never waits for it or fails with it. A student opts out on their e-mail page.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from judge_site.accounts import mail
from judge_site.accounts.models import EmailProfile, RejudgeNotice

logger = logging.getLogger(__name__)

MAX_LISTED = 50  # submissions named in one mail; the rest are counted


def rejudge_notice_later(rejudge_id: int, user_id: int, changes: list[dict[str, Any]]) -> None:
    """Queue the notice for ``user_id``. ``changes``: one dict per changed submission, with
    ``submission`` (id), ``problem`` (number), ``title``, ``before`` and ``after`` (verdicts)."""
    if mail.mail_enabled() and changes:
        mail.send_later("send_rejudge_notice", rejudge_id, user_id, changes)


def _link(path: str) -> str:
    return f"{settings.JUDGE_SITE_URL}{path}" if settings.JUDGE_SITE_URL else ""


def rejudge_notice_send(rejudge_id: int, user_id: int, changes: list[dict[str, Any]]) -> str:
    """Send the notice (the task's body); what happened, in words. Raises when the mail server
    refuses it, after recording the error, so that the task retries."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not mail.address_usable(user):
        return "skipped: no address to mail"
    wanted = EmailProfile.objects.filter(user=user).values_list("rejudge_notices", flat=True)
    if wanted.first() is False:
        return "skipped: notices turned off"
    notice, _ = RejudgeNotice.objects.get_or_create(
        user=user, rejudge_id=rejudge_id,
        defaults={"submissions": [int(c["submission"]) for c in changes]},
    )
    if notice.sent_at is not None:
        return "skipped: already sent"
    listed = [
        {**change, "link": _link(reverse("submission_detail", args=[change["submission"]]))}
        for change in changes[:MAX_LISTED]
    ]
    context = {
        "user": user,
        "changes": listed,
        "count": len(changes),
        "more": max(0, len(changes) - MAX_LISTED),
        "settings_link": _link(reverse("email_settings")),
    }
    subject = render_to_string("accounts/mail/rejudge_subject.txt", context).strip()
    body = render_to_string("accounts/mail/rejudge_email.txt", context)
    try:
        send_mail(subject, body, None, [user.email])
    except Exception as exc:
        logger.exception("rejudge %s: the notice to user %s was not sent", rejudge_id, user_id)
        RejudgeNotice.objects.filter(pk=notice.pk).update(
            error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    RejudgeNotice.objects.filter(pk=notice.pk).update(sent_at=timezone.now(), error="")
    return f"sent: {len(changes)} changed"

"""Address verification (JUDGE_EMAIL_VERIFY): a signed link proves the user reads the address.

The link carries the user's id and the address, signed with SECRET_KEY (Django's signing) and
valid for PASSWORD_RESET_TIMEOUT; nothing is stored until it is opened. Opening it records the
address as confirmed (EmailProfile.verified_email); a later change of address needs a new link.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse

from judge_site.accounts import mail
from judge_site.accounts.models import EmailProfile

SALT = "judge_site.accounts.verify-email"


def link_token(user: Any) -> str:
    return signing.dumps({"u": user.pk, "e": mail.normalized(user.email)}, salt=SALT)


def link_open(token: str) -> tuple[Any | None, str]:
    """Confirm the address the link was made for: (the user, "") or (None, why not)."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.PASSWORD_RESET_TIMEOUT)
    except signing.SignatureExpired:
        return None, "This link has expired: send a new one from your e-mail page."
    except signing.BadSignature:
        return None, "This link is not valid: copy the whole link from the mail, or send a new one."
    if not isinstance(data, dict):
        return None, "This link is not valid: send a new one from your e-mail page."
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None:
        return None, "This link's account no longer exists."
    if mail.normalized(user.email) != data.get("e"):
        return None, (
            "Your account's address changed since this link was sent: use the link sent to "
            "the new address, or send one again from your e-mail page."
        )
    EmailProfile.objects.update_or_create(user=user, defaults={"verified_email": user.email})
    return user, ""


def verification_mail_send(user_id: int, domain: str, use_https: bool) -> bool:
    """Mail the signed link to the user's current address (the task's body); False when there
    is nothing to send (no user, no address, already confirmed)."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or mail.address_verified(user):
        return False
    path = reverse("email_verify", args=[link_token(user)])
    context = {
        "user": user,
        "link": f"{'https' if use_https else 'http'}://{domain}{path}",
        "domain": domain,
        "days": round(settings.PASSWORD_RESET_TIMEOUT / 86400),
    }
    subject = render_to_string("accounts/mail/verify_subject.txt", context).strip()
    body = render_to_string("accounts/mail/verify_email.txt", context)
    send_mail(subject, body, None, [user.email])
    return True

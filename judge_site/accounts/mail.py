"""What the site's mail has in common: whether mail is on, sending later on the maintenance
queue, whether a user's address may be written to, and the throttle on requests that mail an
address someone typed (password reset, verification link).

Mail leaves on a Celery task (the ``beat`` container consumes JUDGE_MAINTENANCE_QUEUE), never in
the request: a reset for an address with an account then costs the page exactly what one for an
unknown address costs (a row and a message), so neither its answer nor its time says which it
was. A mail server that is down fails the task, which logs it; it never fails a page or a
judging.
"""

from __future__ import annotations

import logging
import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from judge_site.accounts.models import EmailProfile, MailRequest
from judge_site.core.queueing import enqueue

logger = logging.getLogger(__name__)


def mail_enabled() -> bool:
    """EMAIL_HOST is set: the site sends mail. Unset (compose's default), it sends none."""
    return bool(settings.EMAIL_HOST)


def startup_line() -> str:
    """One line for the web's start (docker/gunicorn.conf.py): whether and how mail is sent."""
    if not mail_enabled():
        return (
            "e-mail: off (no EMAIL_HOST): no password reset links, address confirmations or "
            "rejudge notices are mailed; set EMAIL_HOST to turn it on (docs/email.md)"
        )
    tls = "STARTTLS" if settings.EMAIL_USE_TLS else "no TLS"
    verify = "on" if settings.JUDGE_EMAIL_VERIFY else "off"
    return (
        f"e-mail: through {settings.EMAIL_HOST}:{settings.EMAIL_PORT} ({tls}) from "
        f"{settings.DEFAULT_FROM_EMAIL}; address verification {verify}"
    )


def send_later(task: str, *args: Any) -> None:
    """Queue the accounts task ``task`` (a name in judge_site/accounts/tasks.py) with ``args``.
    A broker that refuses the message is logged, and the page answers as usual."""
    try:
        _enqueue(f"accounts.{task}", args)
    except Exception:
        logger.exception("could not queue the mail task %s", task)


def _enqueue(name: str, args: tuple[Any, ...]) -> None:
    enqueue(name, args, queue=settings.JUDGE_MAINTENANCE_QUEUE)


def normalized(email: str) -> str:
    return email.strip().lower()


def profile_of(user: Any) -> EmailProfile:
    profile, _ = EmailProfile.objects.get_or_create(user=user)
    return profile


def address_verified(user: Any) -> bool:
    """The user's current address was confirmed by its signed link."""
    email = normalized(getattr(user, "email", "") or "")
    if not email:
        return False
    confirmed = (
        EmailProfile.objects.filter(user=user).values_list("verified_email", flat=True).first()
    )
    return normalized(confirmed or "") == email


def address_usable(user: Any) -> bool:
    """Mail may go to the user's address: they have one, and it is confirmed where the site
    asks for confirmation (JUDGE_EMAIL_VERIFY)."""
    if not getattr(user, "email", ""):
        return False
    return address_verified(user) if settings.JUDGE_EMAIL_VERIFY else True


class Throttled(Exception):
    """Too many mail requests for this address or from this client; ``retry_after_s`` says
    when the oldest counted one leaves the window."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


def _digest(email: str) -> str:
    return salted_hmac("judge-mail-request", normalized(email)).hexdigest()


def request_record(kind: str, email: str, client_ip: str) -> None:
    """Count one request of ``kind`` for ``email`` from ``client_ip``, or raise Throttled when
    JUDGE_RESETS_PER_EMAIL for that address or JUDGE_RESETS_PER_CLIENT from that client were
    already made within JUDGE_RESET_WINDOW_MIN (a refused request is not counted). Counted
    alike for addresses with and without an account: the throttle tells nothing either."""
    digest = _digest(email)
    window = timedelta(minutes=settings.JUDGE_RESET_WINDOW_MIN)
    with transaction.atomic():
        _lock(digest)
        now = timezone.now()
        since = now - window
        recent = MailRequest.objects.filter(kind=kind, created_at__gte=since)
        for rows, limit, what in (
            (recent.filter(email_digest=digest), settings.JUDGE_RESETS_PER_EMAIL, "this address"),
            (recent.filter(client_ip=client_ip), settings.JUDGE_RESETS_PER_CLIENT,
             "your network address"),
        ):
            times = list(rows.order_by("-created_at").values_list("created_at", flat=True)[:limit])
            if limit and len(times) >= limit:
                wait_s = math.ceil((times[-1] + window - now).total_seconds())
                raise Throttled(
                    f"Too many requests for {what} in the last "
                    f"{settings.JUDGE_RESET_WINDOW_MIN} minutes: wait {max(1, wait_s // 60)} "
                    "minutes and try again, or ask your instructor or an administrator.",
                    max(1, wait_s),
                )
        MailRequest.objects.filter(created_at__lt=since).delete()  # only the window is kept
        MailRequest.objects.create(kind=kind, email_digest=digest, client_ip=client_ip)


def _lock(digest: str) -> None:
    """Until the transaction ends, the only request for this address (a Postgres advisory
    lock), so that two at once count each other. SQLite lets one writer at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtext('judge-mail'), hashtext(%s))", [digest]
            )

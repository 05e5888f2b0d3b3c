"""Writes on accounts: sign-up (with its throttle and invitation codes), token rotation."""

from __future__ import annotations

import hmac
import math
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from judge_site.accounts import tokens
from judge_site.accounts.models import Registration


class SignupRefused(Exception):
    """Sign-up is not possible now; the message says why and what to do. ``status`` is the
    HTTP status to answer with (403 closed, 429 throttled)."""

    def __init__(self, message: str, status: int, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s


def invite_code_valid(code: str) -> bool:
    """``code`` is one of JUDGE_SIGNUP_INVITE_CODES (compared in constant time)."""
    given = code.strip().encode()
    return any(
        hmac.compare_digest(given, known.encode()) for known in settings.JUDGE_SIGNUP_INVITE_CODES
    )


def signup_check(address: str) -> None:
    """Raise SignupRefused when sign-up is closed or ``address`` created too many accounts
    within the window (JUDGE_SIGNUPS_PER_ADDRESS per JUDGE_SIGNUP_WINDOW_MIN; 0 = no cap)."""
    if settings.JUDGE_SIGNUP == "closed":
        raise SignupRefused(
            "Sign-up is closed on this site: ask your instructor or an administrator for an "
            "account.",
            403,
        )
    limit = settings.JUDGE_SIGNUPS_PER_ADDRESS
    window = timedelta(minutes=settings.JUDGE_SIGNUP_WINDOW_MIN)
    now = timezone.now()
    recent = Registration.objects.filter(client_ip=address, created_at__gte=now - window)
    if limit and recent.count() >= limit:
        # The cap frees a place when the oldest counted sign-up leaves the window.
        oldest = recent.order_by("created_at").values_list("created_at", flat=True)[
            max(0, recent.count() - limit)
        ]
        raise SignupRefused(
            f"Too many accounts were created from your network address in the last "
            f"{settings.JUDGE_SIGNUP_WINDOW_MIN} minutes: try again later, or ask your "
            "instructor for an account.",
            429,
            retry_after_s=max(1, math.ceil((oldest + window - now).total_seconds())),
        )


def signup_create(form: UserCreationForm, address: str, invite_code: str = "") -> AbstractBaseUser:
    """Check the cap and create the account in one transaction that holds the address's lock,
    so that concurrent sign-ups from one address count each other (no count-then-save race).
    Raises SignupRefused like signup_check."""
    with transaction.atomic():
        _lock_address(address)
        signup_check(address)
        user = form.save()
        signup_record(user, address, invite_code)
    return user


def _lock_address(address: str) -> None:
    """Until the transaction ends, the only sign-up of ``address``: a Postgres advisory lock
    on the address's hash (two addresses sharing a hash only wait for each other). SQLite, the
    local development database, lets one writer at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtext('judge-signup'), hashtext(%s))", [address]
            )


def signup_record(user: AbstractBaseUser, address: str, invite_code: str = "") -> Registration:
    return Registration.objects.create(user=user, client_ip=address, invite_code=invite_code)


def token_rotate(user: AbstractBaseUser) -> bool:
    """Revoke the user's API token (called when the password changes): the old one stops
    working and, tokens being stored hashed, a new one is shown only when the user makes it
    on the token page. False when the user had none."""
    return tokens.token_revoke(user)

"""Accounts' tables: API tokens (one per user, stored hashed), registrations, e-mail choices,
mail requests, rejudge notices."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

from judge_site.core.constraints import one_per

TOKEN_PREFIX_CHARS = 8


def token_digest(key: str) -> str:
    """What the table keeps of a token: its SHA-256, hex. A token is 160 random bits, so a
    plain digest (no salt, no stretching) cannot be reversed, and it can be looked up."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A user's API token, stored as its digest (judge_site/accounts/tokens.py issues and
    checks them). ``key`` is the token itself, known only to the instance that set it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=TOKEN_PREFIX_CHARS, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"token {self.prefix}... of {self.user}"

    @property
    def key(self) -> str | None:
        """The token, on the instance that issued it (None once the row was read again)."""
        plain = self.__dict__.get("_plain_key")
        return plain if plain is not None and token_digest(plain) == self.digest else None

    @key.setter
    def key(self, value: str) -> None:
        self.__dict__["_plain_key"] = value
        self.digest = token_digest(value)
        self.prefix = value[:TOKEN_PREFIX_CHARS]

    @staticmethod
    def generate_key() -> str:
        return secrets.token_hex(20)


class Registration(models.Model):
    """How an account was created on the sign-up page: from which address, with which
    invitation code (invite mode). Counts sign-ups per address for the sign-up throttle."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="registration"
    )
    client_ip = models.GenericIPAddressField(db_index=True)
    invite_code = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.user} from {self.client_ip}"


class EmailProfile(models.Model):
    """A user's e-mail choices: which address they confirmed (JUDGE_EMAIL_VERIFY) and whether
    a rejudge that changes one of their verdicts is mailed to them. A user without a row has
    confirmed nothing and gets the notices (the defaults)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_profile"
    )
    # The address the signed link confirmed; the user's current address is confirmed only
    # while it equals this one (a changed address needs a new link).
    verified_email = models.EmailField(blank=True)
    rejudge_notices = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"e-mail choices of {self.user}"


class MailKind(models.TextChoices):
    RESET = "reset", "password reset"
    VERIFY = "verify", "address verification"


class MailRequest(models.Model):
    """One request that would send mail to an address (a reset, a verification link), counted
    for the throttle whether or not the address belongs to an account. The address is kept
    only as a keyed hash (judge_site/accounts/mail.py), never in clear."""

    kind = models.CharField(max_length=10, choices=MailKind.choices)
    email_digest = models.CharField(max_length=64, db_index=True)
    client_ip = models.GenericIPAddressField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.kind} from {self.client_ip}"


class RejudgeNotice(models.Model):
    """The mail telling a student that a rejudge changed verdicts of theirs: one per user per
    rejudge (the rejudge's id, not a key: accounts does not import staff). ``sent_at`` is set
    once the server took it; ``error`` keeps the last failure (it is retried, and logged)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rejudge_notices"
    )
    rejudge_id = models.PositiveBigIntegerField()
    submissions = models.JSONField(default=list)  # the changed submissions' ids
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        constraints = one_per("one_notice_per_rejudge", "user", "rejudge_id")

    def __str__(self) -> str:
        return f"rejudge {self.rejudge_id} notice to {self.user}"

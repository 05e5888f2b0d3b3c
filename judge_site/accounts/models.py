"""API tokens (one per user) for the JSON API and the command-line client."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"token of {self.user}"

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

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

"""manage.py create_api_token USER: make USER a new API token and print it (last line).

Tokens are stored hashed, so an existing token cannot be printed again: when USER has one, it
is replaced (the old one stops working) and a note on stderr says so. ``--rotate`` is kept for
the scripts that pass it (it is what happens anyway).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.accounts import tokens
from judge_site.accounts.models import ApiToken


class Command(BaseCommand):
    help = "Make USER a new API token and print it (an existing one is replaced)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--rotate", action="store_true", help="replace an existing token (always done)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: options["username"]}).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        if ApiToken.objects.filter(user_id=user.pk).exists():
            self.stderr.write(
                f"{options['username']} had a token: it was replaced and no longer works "
                "(tokens are stored hashed and cannot be shown again)"
            )
        _, key = tokens.token_issue(user)
        self.stdout.write(key)

"""manage.py create_api_token USER: print the user's API token, creating it if needed."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.accounts.models import ApiToken


class Command(BaseCommand):
    help = "Print USER's API token (created if missing; --rotate replaces it)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--rotate", action="store_true", help="replace an existing token")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: options["username"]}).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        token, created = ApiToken.objects.get_or_create(
            user=user, defaults={"key": ApiToken.generate_key()}
        )
        if options["rotate"] and not created:
            token.key = ApiToken.generate_key()
            token.save(update_fields=["key"])
        self.stdout.write(token.key)

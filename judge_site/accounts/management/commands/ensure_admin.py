"""Create or update the first administrator from JUDGE_ADMIN_USER / JUDGE_ADMIN_PASSWORD,
and the staff role groups "author" and "teaching assistant" (judge_site/core/roles.py).

Idempotent: run on every start of the web container. With JUDGE_ADMIN_USER unset it creates
no user (the groups still). The password in the environment wins: changing it and restarting
resets it; a group's permissions are reset to the roles' list the same way.
"""

from __future__ import annotations

import os
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from judge_site.core.roles import ensure_groups


class Command(BaseCommand):
    help = (
        "Create or update the admin user named by JUDGE_ADMIN_USER and the staff role groups "
        "(idempotent)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        for name, changed in ensure_groups().items():
            self.stdout.write(f"ensure_admin: group {name!r} {'set' if changed else 'unchanged'}")
        username = os.environ.get("JUDGE_ADMIN_USER", "").strip()
        password = os.environ.get("JUDGE_ADMIN_PASSWORD", "")
        email = os.environ.get("JUDGE_ADMIN_EMAIL", "").strip()
        if not username:
            self.stdout.write("ensure_admin: JUDGE_ADMIN_USER is not set, no admin created")
            return
        if len(password) < 8:
            raise CommandError(
                "JUDGE_ADMIN_PASSWORD must be set (8 characters or more) when "
                "JUDGE_ADMIN_USER is set"
            )
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=username, defaults={"email": email}
        )
        changed = created
        if not (user.is_staff and user.is_superuser and user.is_active):
            user.is_staff = user.is_superuser = user.is_active = True
            changed = True
        if email and user.email != email:
            user.email = email
            changed = True
        if not user.check_password(password):
            user.set_password(password)
            changed = True
        if changed:
            user.save()
        state = "created" if created else ("updated" if changed else "unchanged")
        self.stdout.write(f"ensure_admin: admin {username!r} {state}")

"""Create or update the Postgres role of worker hosts (judge_site/core/worker_role.py).

Run by the web container at every start after `migrate` (docker/entrypoint.sh): with
JUDGE_WORKER_DB_PASSWORD set (scripts/up generates it) the role logs in with it;
unset, the role exists without LOGIN, so a host that stopped taking workers locks them out.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

from judge_site.core.worker_role import role_apply


class Command(BaseCommand):
    help = "Create or update the worker hosts' Postgres role (JUDGE_WORKER_DB_PASSWORD)."

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            self.stdout.write("worker role: not Postgres, nothing to do")
            return
        report = role_apply(settings.JUDGE_WORKER_DB_PASSWORD)
        state = "may log in" if report.login else "cannot log in (no JUDGE_WORKER_DB_PASSWORD)"
        self.stdout.write(
            f"worker role {report.role}: {state}; reads {report.readable_tables} tables, "
            f"writes {report.written_tables}"
        )

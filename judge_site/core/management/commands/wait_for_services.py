"""Wait until the database (DATABASE_URL) and Redis (REDIS_URL) answer, or fail with one line each.

Run by the compose entrypoint before migrating and serving, so a wrong URL shows up as a line
naming the variable instead of a stack trace from deep inside a driver.
"""

from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from judge_site.core.health import service_problems


class Command(BaseCommand):
    help = "Wait for the database and Redis; exit 1 with one line per unreachable service."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--timeout", type=float, default=0.0, help="seconds to keep retrying (default: once)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        deadline = time.monotonic() + float(options["timeout"])
        while True:
            problems = service_problems()
            if not problems:
                self.stdout.write("services ok: database and redis answer")
                return
            if time.monotonic() >= deadline:
                raise CommandError("; ".join(problems), returncode=1)
            time.sleep(1.0)

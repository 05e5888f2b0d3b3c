"""manage.py sync_problems [--dir DIR]: load every package folder into the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.catalog.services import problem_sync_all
from sandbox.grader.package import PackageError


class Command(BaseCommand):
    help = "Create or update problems from the package folders (idempotent; never deletes)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", default=None, help="problems folder (JUDGE_PROBLEMS_DIR)")

    def handle(self, *args: Any, **options: Any) -> None:
        problems_dir = Path(options["dir"] or settings.JUDGE_PROBLEMS_DIR)
        if not problems_dir.is_dir():
            raise CommandError(f"no problems folder at {problems_dir}")
        try:
            results = problem_sync_all(problems_dir)
        except PackageError as exc:
            raise CommandError(str(exc)) from None
        for number, status in results:
            self.stdout.write(f"{number:>4} {status}")
        counts = {s: sum(1 for _, x in results if x == s) for s in {x for _, x in results}}
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no problems"
        self.stdout.write(self.style.SUCCESS(f"synced {problems_dir}: {summary}"))

"""manage.py import_problem FILE.zip [--dest DIR] [--no-sync]: unpack, validate, sync."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.catalog.services import problem_import_zip, problem_sync
from sandbox.grader.package import PackageError


class Command(BaseCommand):
    help = (
        "Import a problem package zip into DIR (default JUDGE_PROBLEMS_DIR) after validating "
        "it (safe paths, size caps, loads), then create or update its problem. The package's "
        "tests.py and solution.py are trusted code: import only packages from authors you trust."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the zip")
        parser.add_argument("--dest", default=None, help="folder to unpack into")
        parser.add_argument("--no-sync", action="store_true", help="do not touch the database")

    def handle(self, *args: Any, **options: Any) -> None:
        dest = Path(options["dest"] or settings.JUDGE_PROBLEMS_DIR)
        try:
            package = problem_import_zip(Path(options["file"]).read_bytes(), dest)
            status = "not synced" if options["no_sync"] else problem_sync(package)
        except (PackageError, OSError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(
            f"imported {package.number} {package.slug} (version {package.version}) into "
            f"{package.path}: {status}"
        ))

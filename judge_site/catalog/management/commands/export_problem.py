"""manage.py export_problem PROBLEM OUT.zip: one package as a zip (the import unit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.catalog.models import Problem
from judge_site.catalog.services import problem_export_zip
from sandbox.grader.package import PackageError, find_package


class Command(BaseCommand):
    help = "Write a problem package (by number or slug) to a zip file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("problem", help="number or slug")
        parser.add_argument("out", help="path of the zip to write")

    def handle(self, *args: Any, **options: Any) -> None:
        key: str = options["problem"]
        stored = Problem.objects.filter(
            **({"number": int(key)} if key.isdigit() else {"slug": key})
        ).first()
        try:
            if stored is not None and Path(stored.package_dir).is_dir():
                package_dir = Path(stored.package_dir)
            else:
                package_dir = find_package(Path(settings.JUDGE_PROBLEMS_DIR), key).path
            data = problem_export_zip(package_dir)
        except PackageError as exc:
            raise CommandError(str(exc)) from None
        out = Path(options["out"])
        out.write_bytes(data)
        self.stdout.write(self.style.SUCCESS(f"wrote {out} ({len(data)} bytes) from {package_dir}"))

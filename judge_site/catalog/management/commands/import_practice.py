"""manage.py import_practice FOLDER [--number N] [--json]: import a practice folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.catalog.services import practice_import
from sandbox.problem import PackageError


class Command(BaseCommand):
    help = (
        "Import a practice folder (problem.md, starter.py, solution.py, test.py: the handbook "
        "format, see problems/README.md) as problem N (default: the next free number). Its "
        "check runs first (solution.py accepted, starter.py not); a folder that fails changes "
        "nothing. Prints a JSON report with --json. Exit status 0 only when it was imported "
        "and its check passed. test.py and solution.py are trusted code: import only folders "
        "from authors you trust."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", help="the practice folder (its name is the slug)")
        parser.add_argument("--number", type=int, default=None, help="the problem number")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--dest", default=None, help="where packages go (default JUDGE_PACKAGES_DIR/practice)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["folder"])
        try:
            report = practice_import(folder, number=options["number"], dest_dir=options["dest"])
        except PackageError as exc:
            if options["json"]:
                self.stdout.write(json.dumps({"error": str(exc), "folder": str(folder)},
                                             ensure_ascii=False))
            raise CommandError(f"{folder}: not imported: {exc}") from None
        shown = {k: v for k, v in report.items() if k not in ("imported", "package_dir")}
        if options["json"]:
            self.stdout.write(json.dumps(shown, ensure_ascii=False, indent=2))
        else:
            check = report["check"]
            self.stdout.write(
                f"{report['slug']} as problem {report['number']}: "
                f"{len(report['public_tests'])} public, {len(report['hidden_tests'])} hidden, "
                f"{len(report['unsupported'])} unsupported; solution {check['solution']}, "
                f"starter {check['starter']}"
            )
            for item in report["unsupported"]:
                self.stdout.write(f"  {item['action']}: {item['test']}: {item['reason']}")
            for message in check["messages"]:
                self.stdout.write(f"  {message}")
        if not report["imported"]:
            raise CommandError(f"{folder}: not imported: its check failed")
        if not options["json"]:
            self.stdout.write(self.style.SUCCESS(f"imported into {report['package_dir']}"))

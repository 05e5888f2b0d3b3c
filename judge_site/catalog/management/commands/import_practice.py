"""manage.py import_practice FOLDER [--number N] [--json]: import a practice folder;
manage.py import_practice DIR --all [--number N] [--json]: every practice folder under DIR."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.catalog.services import practice_import
from judge_site.worker.host_confinement import prepare_command
from sandbox.grader.package import PackageError


class Command(BaseCommand):
    help = (
        "Import a practice folder (problem.md, starter.py, solution.py, test.py: the handbook "
        "format, see problems/README.md; a C++ or CUDA C++ one has .cpp or .cu files and a "
        "test program) as problem N (default: the next free number). Its "
        "check runs first (solution.py accepted, starter.py not); a folder that fails changes "
        "nothing. Prints a JSON report with --json. Exit status 0 only when it was imported "
        "and its check passed. test.py and solution.py are trusted code: import only folders "
        "from authors you trust. With --all, FOLDER is a book (or several, or the handbook's "
        "clone): every practice folder under it is numbered in the book's order (from N with "
        "--number), checked and imported; one report per folder (a table, or a JSON list)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", help="the practice folder (its name is the slug)")
        parser.add_argument("--number", type=int, default=None, help="the problem number")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--all", action="store_true",
            help="FOLDER holds several practice folders (a book): import every one",
        )
        parser.add_argument(
            "--dest", default=None, help="where packages go (default JUDGE_PACKAGES_DIR/practice)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["folder"])
        prepare_command(self, [folder], str(settings.JUDGE_BACKEND))
        if options["all"]:
            self._import_book(folder, options)
            return
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

    def _import_book(self, root: Path, options: dict[str, Any]) -> None:
        from judge_site.catalog.book_import import practice_import_book

        as_json = options["json"]

        def progress(report: dict[str, Any]) -> None:
            if not as_json:
                self.stdout.write(_row(report))
            else:  # the JSON comes at the end; a long book shows its progress on stderr
                self.stderr.write(_row(report), style_func=lambda text: text)

        if not as_json:
            self.stdout.write(_row({}, header=True))
        try:
            reports = practice_import_book(root, number=options["number"],
                                           dest_dir=options["dest"], on_folder=progress)
        except PackageError as exc:
            if as_json:
                self.stdout.write(json.dumps({"error": str(exc), "folder": str(root)},
                                             ensure_ascii=False))
            raise CommandError(f"{root}: nothing imported: {exc}") from None
        imported = sum(1 for r in reports if r["imported"])
        skipped = sum(1 for r in reports if "skipped" in r)
        failed = len(reports) - imported - skipped
        if as_json:
            self.stdout.write(json.dumps(reports, ensure_ascii=False, indent=2))
        else:
            for report in reports:  # the details under the table: what a folder lacks
                for item in report.get("unsupported", []):
                    self.stdout.write(f"  {report['slug']}: {item['action']}: {item['test']}: "
                                      f"{item['reason']}")
            summary = f"{imported} imported, {failed} failed, {skipped} skipped"
            self.stdout.write(self.style.SUCCESS(summary) if not failed else summary)
        if failed:
            raise CommandError(f"{root}: {failed} of {len(reports)} folders not imported")


def _row(report: dict[str, Any], header: bool = False) -> str:
    """One line of the table: number, slug, outcome, tests, verdicts, seconds, what went wrong."""
    if header:
        cells = ["number", "slug", "outcome", "public/hidden", "solution/starter", "s", "detail"]
    else:
        check = report.get("check", {})
        outcome = ("imported" if report["imported"] else "skipped" if "skipped" in report
                   else "failed")
        tests = (f"{len(report['public_tests'])}/{len(report['hidden_tests'])}"
                 if "public_tests" in report else "-")
        verdicts = f"{check['solution']}/{check['starter']}" if check.get("solution") else "-"
        detail = report.get("error") or report.get("skipped") or "; ".join(check.get("messages", []))
        cells = [str(report.get("number") or "-"), report["slug"], outcome, tests, verdicts,
                 f"{report.get('seconds', 0):.1f}", detail]
    widths = [6, 32, 8, 13, 16, 6]
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)) + "  " + cells[-1]

"""``manage.py judge PROBLEM FILE [--mode run|submit] [--json]``: one judging, synchronously.

PROBLEM is a problem number or slug in settings.JUDGE_PROBLEMS_DIR. Exit status 0 whenever
the judging completed, whatever the verdict; non-zero only when the judge itself failed
(including an IE verdict). Tooling outside the repo depends on this exact interface.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from sandbox.contracts import Mode, Verdict
from sandbox.feedback import format_result
from sandbox.problem import PackageError, find_package


class Command(BaseCommand):
    help = "Judge FILE against PROBLEM (number or slug) through the configured sandbox backend."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("problem")
        parser.add_argument("file")
        parser.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.SUBMIT.value)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        from judge_site.submissions.engine import judge_source

        try:
            package = find_package(Path(settings.JUDGE_PROBLEMS_DIR), options["problem"])
        except (PackageError, OSError) as exc:
            raise CommandError(str(exc)) from None
        try:
            source = Path(options["file"]).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise CommandError(f"cannot read {options['file']}: {exc}") from None
        result = judge_source(package, source, Mode(options["mode"]))
        if options["json"]:
            self.stdout.write(json.dumps(result.to_json()))
        else:
            self.stdout.write(format_result(result))
        if result.verdict == Verdict.IE:
            raise CommandError(f"internal error: {result.message}")

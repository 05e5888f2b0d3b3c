"""``manage.py judge PROBLEM FILE [--mode run|submit] [--json] [--seed N]``: one judging.
``--mode scratch --script F`` runs the lines of F after FILE instead (a scratch run: no test;
what F printed, then how it ended; with ``--json``, the result's ``output`` key).

PROBLEM is a problem number or slug in settings.JUDGE_PROBLEMS_DIR. Exit status 0 whenever
the judging completed, whatever the verdict; non-zero only when the judge itself failed
(including an IE verdict). Tooling outside the repo depends on this exact interface: the
output shows what a student would see (hidden tests filtered by the package's policy).

``--seed N`` judges with that secret seed (the hidden tests' inputs of the judging that drew
it: the text output's last line, or the staff page of a submission), so that a failure can be
reproduced. It is a
staff tool: nothing of the site or its API takes a seed from a request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from sandbox.grader.contracts import Mode, Verdict, scratch_refusal
from sandbox.grader.feedback import format_result, result_for_student
from sandbox.grader.package import PackageError, find_package


def _seed(text: str) -> int:
    value = int(text)
    if not 0 <= value < 2**63:
        raise ValueError(text)
    return value


class Command(BaseCommand):
    help = "Judge FILE against PROBLEM (number or slug) through the configured sandbox backend."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("problem")
        parser.add_argument("file")
        parser.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.SUBMIT.value)
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--seed", type=_seed, default=None, metavar="N",
                            help="the secret seed of the hidden tests' inputs (0 <= N < 2**63), "
                                 "e.g. a submission's, shown on its staff page")
        parser.add_argument("--script", default=None, metavar="F",
                            help="with --mode scratch: the lines to run after FILE")

    def handle(self, *args: Any, **options: Any) -> None:
        from judge_site.worker.engine import judge_engine
        from judge_site.worker.host_confinement import prepare_command

        try:
            package = find_package(Path(settings.JUDGE_PROBLEMS_DIR), options["problem"])
        except (PackageError, OSError) as exc:
            raise CommandError(str(exc)) from None
        prepare_command(self, [package.path], str(settings.JUDGE_BACKEND))
        try:
            source = Path(options["file"]).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise CommandError(f"cannot read {options['file']}: {exc}") from None
        script = _scratch_script(Mode(options["mode"]), options["script"])
        refused = scratch_refusal(package.harness)
        if script and refused:
            raise CommandError(refused)
        engine = judge_engine()
        if script:
            full = engine.judge(package, source, Mode.SCRATCH, secret_seed=options["seed"],
                                script=script)
        else:
            full = engine.judge(package, source, Mode(options["mode"]), secret_seed=options["seed"])
        result = result_for_student(full, package.feedback_hidden)
        if options["json"]:
            self.stdout.write(json.dumps(result.to_json()))
        elif result.output is not None:
            from sandbox.grader.kinds.scratch import format_scratch

            self.stdout.write(format_scratch(result))
        else:
            self.stdout.write(format_result(result))
            # Last, so that ``--seed`` can judge these very inputs again.
            self.stdout.write(f"secret seed: {full.secret_seed}")
        if result.verdict == Verdict.IE:
            raise CommandError(f"internal error: {result.message}")


def _scratch_script(mode: Mode, script_file: str | None) -> str:
    """``JudgeEngine.judge``'s ``script``: a scratch run's, read from ``--script``; else ''."""
    if mode != Mode.SCRATCH:
        if script_file is not None:
            raise CommandError("--script goes with --mode scratch only")
        return ""
    if script_file is None:
        raise CommandError("--mode scratch needs --script F: the lines to run after FILE")
    try:
        script = Path(script_file).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CommandError(f"cannot read {script_file}: {exc}") from None
    if not script.strip():
        raise CommandError(f"{script_file} is empty: write the lines to run after FILE")
    return script

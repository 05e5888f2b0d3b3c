"""manage.py check_problems [PROBLEM...]: prove packages through the real judging path."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.worker import confinement
from judge_site.worker.engine import judge_engine
from judge_site.worker.host_confinement import prepare_command
from sandbox.grader.check import CheckItem
from sandbox.grader.package import PackageError, ProblemPackage, find_package, load_package


class Command(BaseCommand):
    help = (
        "Check problem packages: reference AC, starter fails, each solutions/<VERDICT>/ file "
        "gets its verdict and is caught by hidden tests alone. Exit status 1 on any failure."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("problems", nargs="*", help="numbers, slugs or folders (default: all)")
        parser.add_argument("--dir", default=None, help="problems folder (JUDGE_PROBLEMS_DIR)")
        parser.add_argument("--backend", default=None, help="sandbox backend (JUDGE_BACKEND)")
        parser.add_argument("--no-bench", action="store_true", help="skip the reference benchmark")
        parser.add_argument("--seed", type=int, default=None, help="secret seed of hidden tests")

    def handle(self, *args: Any, **options: Any) -> None:
        problems_dir = Path(options["dir"] or settings.JUDGE_PROBLEMS_DIR)
        try:
            packages = self._packages(problems_dir, options["problems"])
        except PackageError as exc:
            raise CommandError(str(exc)) from None
        backend = judge_engine().backend(name=options["backend"])
        prepare_command(self, [p.path for p in packages], backend.name)
        extra: dict[str, Any] = {"bench": not options["no_bench"]}
        if options["seed"] is not None:
            extra["secret_seed"] = options["seed"]
        failed: list[str] = []
        skipped: list[str] = []
        for package in packages:
            self.stdout.write(f"== {package.folder_name} (version {package.version})")

            def show(item: CheckItem) -> None:
                mark = self.style.SUCCESS("ok  ") if item.ok else self.style.ERROR("FAIL")
                took = f" [{item.seconds:.1f}s]" if item.seconds else ""
                detail = f": {item.detail}" if item.detail else ""
                self.stdout.write(f"  {mark} {item.name}{took}{detail}")
                self.stdout.flush()

            report = confinement.check_package(package, backend, on_item=show, **extra)
            if report.skipped:
                skipped.append(package.folder_name)
                self.stdout.write(self.style.WARNING(f"  SKIP {report.skipped}"))
            if not report.ok:
                failed.append(package.folder_name)
        if failed:
            self.stdout.write(
                self.style.ERROR(f"{len(failed)} of {len(packages)} failed: {', '.join(failed)}")
            )
            sys.stdout.flush()
            raise CommandError("problem check failed", returncode=1)
        checked = len(packages) - len(skipped)
        note = f" ({len(skipped)} skipped: {', '.join(skipped)})" if skipped else ""
        self.stdout.write(self.style.SUCCESS(f"all {checked} checked package(s) pass{note}"))

    @staticmethod
    def _packages(problems_dir: Path, keys: list[str]) -> list[ProblemPackage]:
        if not keys:
            return [
                load_package(p)
                for p in sorted(problems_dir.iterdir())
                if (p / "problem.toml").is_file()
            ]
        return [
            load_package(k) if Path(k).is_dir() else find_package(problems_dir, k) for k in keys
        ]

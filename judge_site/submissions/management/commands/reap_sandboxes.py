"""``manage.py reap_sandboxes [--older-than SECONDS]``: remove orphaned sandbox containers.

A worker that crashes mid-judging leaves its container behind (the context manager never ran).
Every sandbox carries the label ``tensor-judge.sandbox=1`` and its creation time; this removes
those older than the longest a judging may take (default: twice the sandbox wall-clock limit,
10 minutes). Safe to run while workers judge: younger containers are left alone.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from sandbox.host.backends.base import get_backend


class Command(BaseCommand):
    help = "Remove orphaned sandbox containers older than --older-than seconds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=float, default=600.0, metavar="SECONDS")
        parser.add_argument(
            "--backend", default=getattr(settings, "JUDGE_BACKEND", "docker"),
            help="sandbox backend to reap (default: JUDGE_BACKEND)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        older_than_s = float(options["older_than"])
        if older_than_s < 0:
            raise CommandError("--older-than must be >= 0")
        try:
            backend = get_backend(options["backend"])
            removed = backend.reap(older_than_s)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        except Exception as exc:  # the engine is down: say so, fail the command
            raise CommandError(f"reaping failed: {exc.__class__.__name__}: {exc}") from None
        self.stdout.write(f"removed {removed} orphaned sandbox(es) older than {older_than_s:g} s")

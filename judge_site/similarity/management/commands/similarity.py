"""manage.py similarity --assignment ID [--threshold X] [--json]

The contract (issue 40, docs/courses.md "Similarity"): with --json, JSON Lines on stdout, one
object per pair with exactly the keys a, b (usernames), problem (its number), score (0..1),
a_submission, b_submission (submission ids), highest score first; nothing else on stdout.
Without it, a table for people. Computed in this process (nothing is stored, no worker needed).
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.courses.models import Assignment
from judge_site.similarity import compare, services


class Command(BaseCommand):
    help = (
        "Pairs of students whose accepted code for a problem of the assignment is similar, "
        "highest score first. --json prints JSON Lines: one object per pair per line, keys "
        '"a", "b", "problem", "score", "a_submission", "b_submission".'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--assignment", required=True, type=int, metavar="ID",
                            help="the assignment's id (the admin and the course's API list it)")
        parser.add_argument("--threshold", default=None, metavar="X",
                            help="lowest score shown, 0..1 "
                                 f"(default {compare.DEFAULT_THRESHOLD})")
        parser.add_argument("--json", action="store_true",
                            help="JSON Lines on stdout, one object per pair")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            threshold = services.parse_threshold(options["threshold"])
        except services.SimilarityError as exc:
            raise CommandError(exc.message) from None
        assignment = Assignment.objects.select_related("course").filter(
            pk=options["assignment"]).first()
        if assignment is None:
            raise CommandError(
                f"No assignment {options['assignment']}: the course's page or "
                "GET /api/v1/courses/<id>/assignments lists their ids."
            )
        started = time.perf_counter()
        report = services.assignment_report(assignment, threshold)
        elapsed = time.perf_counter() - started
        if options["json"]:
            for match in report.matches:
                self.stdout.write(json.dumps(match.to_json()))
        else:
            self._table(report, threshold)
        self.stderr.write(
            f"{report.documents} submissions, {report.pairs_scored} pairs scored, "
            f"{len(report.matches)} at or above {threshold:g}, in {elapsed:.1f} s",
            style_func=lambda text: text,  # a summary, not an error: never coloured red
        )

    def _table(self, report: compare.Report, threshold: float) -> None:
        if not report.matches:
            self.stdout.write(f"No pair at or above {threshold:g}.")
            return
        wa = max(len("a"), *(len(m.a) for m in report.matches))
        wb = max(len("b"), *(len(m.b) for m in report.matches))
        self.stdout.write(f"{'score':>6}  {'problem':>7}  {'a':<{wa}}  {'b':<{wb}}  submissions")
        for m in report.matches:
            self.stdout.write(
                f"{m.score:>6.3f}  {m.problem:>7}  {m.a:<{wa}}  {m.b:<{wb}}  "
                f"{m.a_submission}, {m.b_submission}"
            )

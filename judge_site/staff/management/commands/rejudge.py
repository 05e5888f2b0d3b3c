"""manage.py rejudge (--submission ID | --problem N [--only-accepted]) [--fresh-seed] [--wait]"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.catalog.models import Problem
from judge_site.staff.models import Rejudge, RejudgeItem
from judge_site.staff.services.rejudge import rejudge_problem, rejudge_submission
from judge_site.submissions.models import Submission


class Command(BaseCommand):
    help = (
        "Judge submissions again with their problem's current package, on the low-priority "
        "rejudge queue (JUDGE_REJUDGE_QUEUE). Prints the rejudge's number; --wait waits for it "
        "and prints each submission whose verdict changed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--submission", type=int, help="one submission, by id")
        which.add_argument("--problem", type=int, help="every finished Submit of problem N")
        parser.add_argument("--only-accepted", action="store_true",
                            help="with --problem: only the accepted submissions")
        parser.add_argument("--fresh-seed", action="store_true",
                            help="new hidden inputs (a new secret seed) instead of each "
                                 "submission's last judging's, which the rejudge reuses so its "
                                 "changes are the new version's, not new random inputs")
        parser.add_argument("--wait", action="store_true",
                            help="wait until a worker has judged them all, then print changes")
        parser.add_argument("--timeout", type=float, default=3600.0, help="for --wait, seconds")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["only_accepted"] and options["problem"] is None:
            raise CommandError("--only-accepted goes with --problem")
        if options["submission"] is not None:
            sub = Submission.objects.filter(pk=options["submission"]).first()
            if sub is None:
                raise CommandError(f"no submission {options['submission']}")
            rejudge = rejudge_submission("manage.py", sub, options["fresh_seed"])
        else:
            problem = Problem.objects.filter(number=options["problem"]).first()
            if problem is None:
                raise CommandError(f"no problem {options['problem']}")
            rejudge = rejudge_problem("manage.py", problem, options["only_accepted"],
                                      options["fresh_seed"])
        count = RejudgeItem.objects.filter(rejudge=rejudge).count()
        self.stdout.write(
            f"rejudge {rejudge.pk}: {rejudge.scope}: {count} submission(s) queued on "
            f"{settings.JUDGE_REJUDGE_QUEUE!r}"
        )
        if not options["wait"]:
            return
        deadline = time.monotonic() + options["timeout"]
        while not Rejudge.objects.filter(pk=rejudge.pk, finished_at__isnull=False).exists():
            if time.monotonic() > deadline:
                raise CommandError(f"rejudge {rejudge.pk} has not finished: is a worker "
                                   f"consuming {settings.JUDGE_REJUDGE_QUEUE!r}?")
            time.sleep(1.0)
        changed = [i for i in RejudgeItem.objects.filter(rejudge=rejudge) if i.changed]
        for item in changed:
            self.stdout.write(f"  #{item.submission_id}: {item.verdict_before} -> "
                              f"{item.verdict_after}")
        failed = RejudgeItem.objects.filter(rejudge=rejudge, status="failed").count()
        self.stdout.write(f"finished: {len(changed)} verdict(s) changed, {failed} not judged")

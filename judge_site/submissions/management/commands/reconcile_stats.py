"""manage.py reconcile_stats: recompute the pages' aggregates from the submissions and repair
what differs (beat does it every JUDGE_STATS_RECONCILE_EVERY_S); prints what was repaired."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from judge_site.submissions.aggregates import stats_reconcile


class Command(BaseCommand):
    help = "Recompute the aggregates (best results, counters) and repair any drift."

    def handle(self, *args: Any, **options: Any) -> None:
        fixed = stats_reconcile()
        self.stdout.write(f"repaired: {fixed.pairs} best results, {fixed.problems} problem "
                          f"counters, {fixed.users} user counters")

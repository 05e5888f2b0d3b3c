"""The data migrations of stored results, run for real (back to 0006, rows of the old shapes,
then forward): 0007 marks the results judged before the complete result was kept as already
filtered for students; 0008 replaces the benchmarks' ``verified`` flag by ``trust``."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("submissions", "0006_backfill_aggregates")]
TRUST = [("submissions", "0008_benchmark_trust_replaces_verified")]
SEED = [("submissions", "0007_complete_results_secret_seed")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_stored_results_get_trust_instead_of_verified_and_say_they_were_filtered() -> None:
    apps = _migrate(BEFORE)
    try:
        user = apps.get_model(*settings.AUTH_USER_MODEL.split(".")).objects.create(username="old")
        problem = apps.get_model("catalog", "Problem").objects.create(
            number=77, slug="old-problem", title="Old", difficulty="easy", version="v-old")
        Submission = apps.get_model("submissions", "Submission")

        def stored(**fields: Any) -> int:
            return int(Submission.objects.create(user=user, problem=problem, status="done",
                                                 verdict="AC", code="x", **fields).pk)

        tests = [{"name": "large", "public": False, "verdict": "WA",
                  "message": "wrong answer: value", "details": {}}]
        rows = {
            "before trust, not believed": stored(benchmark={"speedup": 2.0, "verified": False}),
            "before trust, believed": stored(benchmark={"speedup": 2.0, "verified": True}),
            "both": stored(benchmark={"speedup": 2.0, "trust": "charged", "verified": True}),
            "trust only": stored(benchmark={"speedup": 2.0, "trust": "rejected"}),
            "no benchmark": stored(benchmark=None, tests=tests),
        }
        apps = _migrate(TRUST)
        Submission = apps.get_model("submissions", "Submission")
        after = {name: Submission.objects.get(pk=pk) for name, pk in rows.items()}
        assert {name: s.benchmark for name, s in after.items()} == {
            "before trust, not believed": {"speedup": 2.0, "trust": "rejected"},
            "before trust, believed": {"speedup": 2.0, "trust": "verified"},
            "both": {"speedup": 2.0, "trust": "charged"},
            "trust only": {"speedup": 2.0, "trust": "rejected"},
            "no benchmark": None,
        }
        assert after["no benchmark"].tests_filtered, "judged before: already filtered"
        assert after["no benchmark"].secret_seed is None
        assert not after["both"].tests_filtered  # no tests stored: nothing to show as stored
        apps = _migrate(SEED)  # and back: the flag derived again
        Submission = apps.get_model("submissions", "Submission")
        assert Submission.objects.get(pk=rows["both"]).benchmark == {
            "speedup": 2.0, "trust": "charged", "verified": True}
        assert Submission.objects.get(pk=rows["trust only"]).benchmark["verified"] is False
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

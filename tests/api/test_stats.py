"""The aggregates (BestResult, ProblemStats, UserStats) equal a recomputation from the
submissions after judgings, rejudges, deletions and seed_demo; reconcile repairs drift; the
pages read them (same queries at two history sizes) and the cached boards follow the events."""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from judge_cast import make_problem, token_for

from judge_site.staff.models import RejudgeItem
from judge_site.staff.services.rejudge import rejudge_item_judge, rejudge_start
from judge_site.submissions import aggregates, leaderboards, services, tasks
from judge_site.submissions.models import (
    BestResult,
    ProblemStats,
    Submission,
    SyntheticUser,
    UserStats,
)

pytestmark = pytest.mark.django_db

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"
RANK = {v: i for i, v in enumerate(["AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "IE"])}


def judged(user: Any, problem: Any, code: str = GOOD, mode: str = "submit") -> Submission:
    """A submission created and judged by the fake engine (no broker: judged right here)."""
    sub = services.submission_create(user, problem, code, mode)
    services.submission_judge(sub.pk)
    return Submission.objects.get(pk=sub.pk)


def recomputed() -> tuple[dict, dict, dict]:
    """The aggregates from the submissions, written plainly and apart from aggregates.py."""
    pairs: dict[tuple[int, int], dict[str, Any]] = {}
    for s in Submission.objects.order_by("created_at", "pk"):
        row = pairs.setdefault((s.user_id, s.problem_id), {
            "submissions": 0, "judged": 0, "accepted": 0, "best_verdict": "",
            "first_ac_submission_id": None, "best_speedup": None, "best_submission_id": None})
        row["submissions"] += 1
        if s.status != "done" or s.mode != "submit":
            continue
        row["judged"] += 1
        if not row["best_verdict"] or RANK[s.verdict] < RANK[row["best_verdict"]]:
            row["best_verdict"] = s.verdict
        if s.verdict != "AC":
            continue
        row["accepted"] += 1
        row["first_ac_submission_id"] = row["first_ac_submission_id"] or s.pk
        speed = (s.benchmark or {}).get("speedup")
        if row["best_submission_id"] is None or (speed or 0) > (row["best_speedup"] or 0):
            row["best_speedup"], row["best_submission_id"] = speed, s.pk
    problems: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    users: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for (uid, pid), row in pairs.items():
        problems[pid][0] += row["judged"]
        problems[pid][1] += row["accepted"]
        problems[pid][2] += row["accepted"] > 0
        problems[pid][3] += 1
        users[uid][0] += row["accepted"] > 0
        users[uid][1] += 1
    return pairs, {k: tuple(v) for k, v in problems.items()}, {k: tuple(v) for k, v in users.items()}


def stored() -> tuple[dict, dict, dict]:
    keys = ["submissions", "judged", "accepted", "best_verdict", "first_ac_submission_id",
            "best_speedup", "best_submission_id"]
    pairs = {(r["user_id"], r["problem_id"]): {k: r[k] for k in keys}
             for r in BestResult.objects.values("user_id", "problem_id", *keys)}
    problems = {p.pk: (p.judged, p.accepted, p.solvers, p.tried)
                for p in ProblemStats.objects.all() if (p.judged, p.accepted, p.solvers, p.tried)
                != (0, 0, 0, 0)}
    users = {u.pk: (u.solved, u.tried) for u in UserStats.objects.all() if (u.solved, u.tried)
             != (0, 0)}
    return pairs, problems, users


def assert_consistent() -> None:
    want, have = recomputed(), stored()
    assert have[0] == want[0], "pairs"
    assert have[1] == want[1], "problem counters"
    assert have[2] == want[2], "user counters"


def test_the_aggregates_equal_a_recomputation_after_judgings_rejudges_and_deletions(
    alice, bob, charlie, problem, fake_engine, enqueued, monkeypatch
):
    other = make_problem(51, slug="other")
    judged(alice, problem, "WRONG")
    first_ac = judged(alice, problem)
    judged(alice, problem, mode="run")  # Run: tried, never ranked
    judged(alice, other, "WRONG")
    bobs = judged(bob, problem)
    judged(bob, problem, "CRASH")  # the engine fails: retried, then IE (ours)
    services.submission_create(bob, other, GOOD, "submit")  # queued: tried, not judged
    assert_consistent()
    row = BestResult.objects.get(user=alice, problem=problem)
    assert (row.judged, row.accepted, row.attempts, row.best_verdict) == (2, 1, 2, "AC")
    assert row.first_ac_submission_id == first_ac.pk and row.attempts_to_ac == 2
    assert row.best_speedup == 2.5 and row.best_geomean == 2.5
    assert BestResult.objects.get(user=bob, problem=problem).attempts == 1  # IE not counted
    assert ProblemStats.objects.get(problem=problem).solvers == 2
    assert UserStats.objects.get(user=bob).tried == 2

    # A rejudge that changes a verdict: bob's AC becomes a WA.
    Submission.objects.filter(pk=bobs.pk).update(code="WRONG now")
    monkeypatch.setattr("judge_site.staff.services.rejudge._enqueue_item", lambda pk: None)
    rejudge_start(charlie, [bobs], "test")
    for item in RejudgeItem.objects.all():
        rejudge_item_judge(item.pk)
    assert Submission.objects.get(pk=bobs.pk).verdict == "WA"
    assert_consistent()
    assert ProblemStats.objects.get(problem=problem).solvers == 1

    # Deletions: one submission (the admin), then a whole user with their history.
    first_ac.delete()
    assert_consistent()
    assert BestResult.objects.get(user=alice, problem=problem).best_verdict == "WA"
    bob.delete()
    assert_consistent()
    assert not BestResult.objects.filter(user_id=bobs.user_id).exists()


def test_seed_demo_adds_through_the_aggregates_and_removes_exactly_its_rows(
    alice, problem, fake_engine, enqueued
):
    make_problem(51, slug="other")
    judged(alice, problem)
    before = stored()
    call_command("seed_demo", submissions=120, users=6, seed=7, stdout=io.StringIO())
    assert Submission.objects.filter(synthetic=True).count() == 120
    assert SyntheticUser.objects.count() == 6
    assert_consistent()
    # A mix: accepted Submits with per-shape benchmarks, other verdicts, some Runs.
    verdicts = set(Submission.objects.filter(synthetic=True).values_list("verdict", flat=True))
    assert {"AC", "WA"} <= verdicts
    assert BestResult.objects.filter(best_geomean__isnull=False).exclude(user=alice).exists()
    call_command("seed_demo", remove=True, stdout=io.StringIO())
    assert Submission.objects.count() == 1 and SyntheticUser.objects.count() == 0
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["alice"]
    assert stored() == before
    assert_consistent()


def test_reconcile_repairs_every_kind_of_drift_and_then_finds_nothing(
    alice, bob, problem, fake_engine, enqueued
):
    judged(alice, problem)
    judged(bob, problem, "WRONG")
    ProblemStats.objects.filter(problem=problem).update(judged=99, solvers=0)
    BestResult.objects.filter(user=alice).update(best_speedup=0.1, accepted=0)
    UserStats.objects.filter(user=bob).delete()
    stats_row = BestResult.objects.get(user=bob)
    Submission.objects.filter(user=bob).update(verdict="AC")  # written behind the hook's back
    fixed = aggregates.stats_reconcile()
    assert fixed.pairs == 2 and fixed.problems == 1 and fixed.users >= 1
    assert_consistent()
    assert tasks.reconcile_stats() == {"pairs": 0, "problems": 0, "users": 0}  # the periodic task
    out = io.StringIO()
    call_command("reconcile_stats", stdout=out)
    assert "repaired: 0 best results" in out.getvalue()
    assert BestResult.objects.get(pk=stats_row.pk).best_verdict == "AC"


def test_a_cached_board_changes_with_the_event_and_pages(
    client, alice, bob, problem, fake_engine, enqueued, monkeypatch
):
    monkeypatch.setattr(leaderboards, "BOARD_PAGE_SIZE", 1)
    judged(alice, problem)
    assert "alice" in client.get("/problems/48/leaderboard/").content.decode()  # now cached
    judged(bob, problem)  # ties go to the earlier: bob is second, on page 2
    page2 = client.get("/problems/48/leaderboard/?page=2").content.decode()
    assert "bob" in page2 and "page 2 of 2" in page2
    Submission.objects.filter(user=bob).update(
        benchmark={"speedup": 9.0, "submission_ms": 1, "baseline_ms": 9})
    aggregates.stats_refresh_pair(bob.pk, problem.pk)  # what a rejudge's write does
    first = client.get("/problems/48/leaderboard/").content.decode()
    assert "bob" in first and "9.00×" in first
    overall = client.get("/leaderboard/?page=2").content.decode()
    assert "page 2 of 2" in overall


def _queries(client: Client, path: str, **headers: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(path, **headers).status_code == 200
    return len(ctx.captured_queries)


def test_every_page_makes_the_same_queries_at_two_history_sizes(
    alice, problem, fake_engine, enqueued
):
    """Cost independent of history: no page reads more rows as the history grows (with the
    indexes, each query touches a bounded number of rows)."""
    mine = judged(alice, problem)
    token = token_for(alice)
    client = Client()
    client.force_login(alice)
    pages = ["/", "/problems/48/", "/leaderboard/", "/problems/48/leaderboard/",
             "/submissions/", "/api/v1/problems", f"/api/v1/submissions/{mine.pk}"]
    quiet = io.StringIO()
    # The token's first use writes its last-used time (then at most once a minute): not a page's.
    client.get("/api/v1/problems", HTTP_AUTHORIZATION=f"Token {token}")

    def counts() -> list[int]:
        from django.core.cache import cache

        cache.clear()
        return [_queries(client, path, HTTP_AUTHORIZATION=f"Token {token}") for path in pages]

    call_command("seed_demo", submissions=20, users=2, seed=1, stdout=quiet)
    small = counts()
    call_command("seed_demo", submissions=200, users=20, seed=2, stdout=quiet)
    assert counts() == small


def test_the_reconcile_is_scheduled_for_beat_on_the_maintenance_queue(settings):
    from judge_site.celery import app

    entries = {e["task"]: e for e in app.conf.beat_schedule.values()}
    reconcile = entries["submissions.reconcile_stats"]
    assert reconcile["schedule"] == settings.JUDGE_STATS_RECONCILE_EVERY_S
    assert reconcile["options"]["queue"] == settings.JUDGE_MAINTENANCE_QUEUE
    route = app.amqp.router.route({}, tasks.reconcile_stats.name)
    assert route["queue"].name == settings.JUDGE_MAINTENANCE_QUEUE

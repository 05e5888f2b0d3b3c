"""Rejudges: every finished submission judged again on the rejudge queue, the changed verdicts
recorded before -> after, from the admin, the staff pages and manage.py rejudge; and a
student's judging never waits behind a rejudge."""

from __future__ import annotations

import io
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import TestCase

from judge_site.staff.models import AuditEntry, Rejudge, RejudgeItem, RejudgeStatus
from judge_site.staff.services.rejudge import rejudge_item_judge, rejudge_problem
from judge_site.submissions import services
from judge_site.submissions.models import Status, Submission

ROOT = Path(__file__).resolve().parents[2]


def _done(user: Any, problem: Any, code: str, verdict: str, mode: str = "submit") -> Submission:
    return Submission.objects.create(
        user=user, problem=problem, mode=mode, code=code, status=Status.DONE, verdict=verdict,
        problem_version="v-old",
    )


def _run_all(rejudge: Rejudge) -> None:
    for item in RejudgeItem.objects.filter(rejudge=rejudge):
        rejudge_item_judge(item.pk)


@pytest.mark.django_db
def test_it_rejudges_a_problem_and_records_the_changed_verdicts(
    alice: Any, bob: Any, charlie: Any, problem: Any, fake_engine: Any, staff_tasks: list[Any],
    settings: Any,
) -> None:
    settings.JUDGE_REJUDGE_QUEUE = "rejudge"
    was_lucky = _done(alice, problem, "x = 1  # WRONG", "AC")  # the new tests catch it
    still_good = _done(bob, problem, "x = 2", "AC")
    fixed = _done(bob, problem, "x = 3", "WA")
    _done(bob, problem, "x = 4", "AC", mode="run")  # runs are not rejudged with the problem
    Submission.objects.create(user=bob, problem=problem, code="x = 5")  # still queued
    with TestCase.captureOnCommitCallbacks(execute=True):
        rejudge = rejudge_problem(charlie, problem)
    items = list(RejudgeItem.objects.filter(rejudge=rejudge))
    assert [i.submission_id for i in items] == [was_lucky.pk, still_good.pk, fixed.pk]
    assert staff_tasks == [("rejudge", i.pk, "rejudge") for i in items]
    assert rejudge.finished_at is None
    _run_all(rejudge)
    rejudge.refresh_from_db()
    assert rejudge.finished_at is not None
    changed = {i.submission_id: (i.verdict_before, i.verdict_after)
               for i in RejudgeItem.objects.filter(rejudge=rejudge) if i.changed}
    assert changed == {was_lucky.pk: ("AC", "WA"), fixed.pk: ("WA", "AC")}
    was_lucky.refresh_from_db()
    assert was_lucky.status == Status.DONE and was_lucky.verdict == "WA"
    assert was_lucky.problem_version == "v-test-1"  # the version that judged it now
    result = was_lucky.judge_result()  # stored once, read back typed
    assert result is not None and str(result.verdict) == "WA"
    assert [t.name for t in result.tests] == ["public_small", "public_pad", "hidden_1"]
    assert rejudge_item_judge(items[0].pk) == "skipped: not pending"  # a redelivered task
    entry = AuditEntry.objects.get(action="rejudge.start")
    assert entry.actor == charlie and entry.detail["submissions"] == 3


@pytest.mark.django_db
def test_only_accepted_and_a_failing_engine(
    alice: Any, charlie: Any, problem: Any, fake_engine: Any, staff_tasks: list[Any]
) -> None:
    crash = _done(alice, problem, "CRASH", "AC")
    _done(alice, problem, "x", "WA")
    rejudge = rejudge_problem(charlie, problem, only_accepted=True)
    (item,) = RejudgeItem.objects.filter(rejudge=rejudge)
    assert item.submission_id == crash.pk
    assert rejudge_item_judge(item.pk) == "failed"
    item.refresh_from_db()
    crash.refresh_from_db()
    assert item.status == RejudgeStatus.FAILED and "docker went away" in item.message
    assert crash.verdict == "AC"  # the engine failed: the submission keeps its verdict
    assert Rejudge.objects.get(pk=rejudge.pk).finished_at is not None


@pytest.mark.django_db(transaction=True)
def test_the_command_rejudges_and_waits_for_the_changes(
    alice: Any, problem: Any, fake_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge_site.staff.services import rejudge as rejudge_module

    monkeypatch.setattr(rejudge_module, "_enqueue_item", rejudge_item_judge)  # an eager worker
    lucky = _done(alice, problem, "WRONG", "AC")
    _done(alice, problem, "fine", "WA")
    out = io.StringIO()
    call_command("rejudge", "--problem", str(problem.number), "--only-accepted", "--wait",
                 stdout=out)
    text = out.getvalue()
    assert "1 submission(s) queued on 'rejudge'" in text
    assert f"#{lucky.pk}: AC -> WA" in text and "finished: 1 verdict(s) changed" in text
    out = io.StringIO()
    call_command("rejudge", "--submission", str(lucky.pk), stdout=out)
    assert "submission(s) queued" in out.getvalue()
    assert AuditEntry.objects.filter(action="rejudge.start", actor_name="manage.py").count() == 2


def test_the_command_needs_one_scope() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("rejudge")
    with pytest.raises(CommandError):
        call_command("rejudge", "--submission", "1", "--problem", "2")


@pytest.fixture
def redis_client() -> Any:
    import redis
    from django.conf import settings

    return redis.Redis.from_url(settings.REDIS_URL)


@pytest.mark.django_db
def test_a_students_judging_is_not_behind_a_100_submission_rejudge(
    alice: Any, bob: Any, charlie: Any, problem: Any, settings: Any,
    monkeypatch: pytest.MonkeyPatch, redis_client: Any,
) -> None:
    """Through the real broker: the rejudge's 100 tasks wait on their own queue, the student's
    judging is alone at the head of the queue the student workers consume, and a rejudge
    never takes the student's one-running-judging slot."""
    tag = uuid.uuid4().hex[:8]
    student_queue, rejudge_queue = f"test-cpu-{tag}", f"test-rejudge-{tag}"
    settings.JUDGE_REJUDGE_QUEUE = rejudge_queue
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1000  # the 100 old submissions were made just now
    monkeypatch.setattr(services, "queue_for", lambda problem: student_queue)
    try:
        for i in range(100):
            _done(bob if i % 2 else alice, problem, f"x = {i}", "AC")
        with TestCase.captureOnCommitCallbacks(execute=True):
            rejudge = rejudge_problem(charlie, problem)
        with TestCase.captureOnCommitCallbacks(execute=True):
            student = services.submission_create(alice, problem, "def f(): pass", "submit")
        assert redis_client.llen(rejudge_queue) == 100
        assert redis_client.llen(student_queue) == 1
        (raw,) = redis_client.lrange(student_queue, 0, -1)
        message = json.loads(raw)
        assert message["headers"]["task"] == "submissions.judge_submission"
        assert message["headers"]["argsrepr"] == f"({student.pk},)"
        tasks = {json.loads(m)["headers"]["task"] for m in redis_client.lrange(rejudge_queue, 0, -1)}
        assert tasks == {"staff.rejudge_item"}
        # A rejudge item of alice's running does not make her new judging wait (busy).
        RejudgeItem.objects.filter(rejudge=rejudge, submission__user=alice).update(
            status=RejudgeStatus.RUNNING)
        monkeypatch.setattr(services, "_enqueue", lambda *a, **k: pytest.fail("requeued"))
        from judge_cast import FakeEngine

        monkeypatch.setattr(services, "_judge_source", FakeEngine())
        monkeypatch.setattr(services, "_load_package", lambda path: object())
        assert services.submission_judge(student.pk).action == "judged"
    finally:
        for key in (student_queue, rejudge_queue):
            redis_client.delete(key, f"_kombu.binding.{key}")


def _service_block(compose: str, name: str) -> str:
    match = re.search(rf"(?ms)^  {re.escape(name)}:\n(.*?)(?=^  \S|^\S)", compose)
    assert match, f"no service {name} in docker-compose.yml"
    return match.group(1)


def test_compose_runs_rejudges_on_a_worker_of_their_own() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    assert re.search(r"WORKER_QUEUES: cpu\n", _service_block(compose, "worker"))
    rejudge = _service_block(compose, "rejudge-worker")
    assert re.search(r"WORKER_QUEUES: rejudge\n", rejudge)
    assert re.search(r"WORKER_CONCURRENCY: 1\n", rejudge)
    for service in ("web", "worker", "rejudge-worker"):
        assert "packages:/app/media/packages" in _service_block(compose, service)


@pytest.mark.django_db
def test_an_item_left_running_by_a_dead_worker_is_judged_when_redelivered(
    alice: Any, charlie: Any, problem: Any, fake_engine: Any, staff_tasks: list[Any]
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    sub = _done(alice, problem, "WRONG", "AC")
    rejudge = rejudge_problem(charlie, problem)
    item = RejudgeItem.objects.get(rejudge=rejudge)
    RejudgeItem.objects.filter(pk=item.pk).update(status=RejudgeStatus.RUNNING,
                                                  started_at=timezone.now())
    assert rejudge_item_judge(item.pk) == "skipped: not pending"  # alive: leave it alone
    RejudgeItem.objects.filter(pk=item.pk).update(
        started_at=timezone.now() - timedelta(hours=1))
    assert rejudge_item_judge(item.pk) == "AC -> WA"
    sub.refresh_from_db()
    assert sub.verdict == "WA"


@pytest.mark.django_db
def test_a_rejudge_reuses_each_judgings_secret_seed_unless_asked_for_fresh_inputs(
    client: Any, alice: Any, charlie: Any, problem: Any, fake_engine: Any,
    staff_tasks: list[Any],
) -> None:
    """The same hidden inputs before and after: the table shows what the version changed."""
    sub = _done(alice, problem, "WRONG", "AC")
    Submission.objects.filter(pk=sub.pk).update(secret_seed=4242)
    _run_all(rejudge_problem(charlie, problem))
    sub.refresh_from_db()
    assert fake_engine.seeds == [4242] and sub.secret_seed == 4242
    client.force_login(charlie)
    response = client.post(f"/staff/submissions/{sub.pk}/rejudge/", {"fresh_seed": "1"})
    fresh = Rejudge.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert fresh.fresh_seed
    _run_all(fresh)
    sub.refresh_from_db()
    assert fake_engine.seeds[1] is None, "a fresh seed is drawn by the engine"
    assert sub.secret_seed not in (None, 4242)  # the new judging's own, kept for the next
    page = client.get(f"/staff/rejudges/{fresh.pk}/").content.decode()
    assert "fresh hidden inputs" in page
    client.post(f"/staff/problems/{problem.number}/rejudge/", {})
    assert not Rejudge.objects.order_by("-pk").first().fresh_seed  # type: ignore[union-attr]
    call_command("rejudge", "--submission", str(sub.pk), "--fresh-seed", stdout=io.StringIO())
    assert Rejudge.objects.order_by("-pk").first().fresh_seed  # type: ignore[union-attr]

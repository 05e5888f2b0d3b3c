"""Worker hosts as first-class: each heartbeat names its host, queues, capacity and tasks in
flight; the dashboard and /metrics list hosts and mark one gone when its heartbeat lapses; a
judging claimed by a host that vanishes is finished by another host (the reaper)."""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from judge_site.staff.services.ops import hosts_from_beats, ops_figures
from judge_site.submissions import reaper, services, tasks
from judge_site.submissions.models import Status, Submission
from judge_site.worker import engine, heartbeat
from sandbox.grader.contracts import JudgeResult, Verdict
from sandbox.grader.contracts import TestResult as CaseResult

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"


def beat(hostname: str, host: str, age_s: float, now: float, **extra: Any) -> dict[str, Any]:
    return {"hostname": hostname, "host": host, "queues": ["cpu"], "concurrency": 2,
            "in_flight": 1, "at": now - age_s, **extra}


def test_hosts_add_up_their_workers_and_lapse_into_gone() -> None:
    now = 1_000_000.0
    hosts = hosts_from_beats([
        beat("cpu@a", "a", 50.0, now),  # lapsed: heartbeat.HEARTBEAT_TTL_S is 35
        beat("cpu@b", "b", 3.0, now),
        beat("gpu@b", "b", 8.0, now, queues=["gpu"], concurrency=1, in_flight=0),
        beat("cpu@c", "c", 60.0, now, stopped=True),
        beat("cpu@d", "d", 40.0, now),  # one worker gone, one alive: the host is alive
        beat("rejudge@d", "d", 1.0, now, queues=["rejudge"], concurrency=1, in_flight=0),
    ], now, held={"cpu@a": 2, "cpu@b": 1})
    by = {h["host"]: h for h in hosts}
    assert [h["host"] for h in hosts] == ["a", "b", "c", "d"]
    assert by["a"] == {
        "host": "a", "state": "gone", "queues": ["cpu"], "capacity": 2, "in_flight": 0,
        "age_s": 50.0, "workers": ["cpu@a"], "held": 2,
    }
    assert by["b"]["state"] == "alive" and by["b"]["queues"] == ["cpu", "gpu"]
    assert (by["b"]["capacity"], by["b"]["in_flight"], by["b"]["age_s"]) == (3, 1, 3.0)
    assert by["b"]["workers"] == ["cpu@b", "gpu@b"] and by["b"]["held"] == 1
    assert by["c"]["state"] == "stopped"
    assert by["d"]["state"] == "alive" and by["d"]["capacity"] == 1  # its live workers only


@pytest.fixture
def two_hosts(settings: Any) -> Any:
    """Host A last beat 100 s ago (gone), host B beats now; both removed afterwards."""
    tag = time.monotonic_ns()
    names = (f"host-a-{tag}", f"host-b-{tag}")
    workers = [f"cpu@{name}" for name in names]
    client = heartbeat.redis_client()
    for worker, name, age in zip(workers, names, (100.0, 0.0), strict=True):
        settings.JUDGE_HOST_NAME = name
        heartbeat.record(client, heartbeat.beat_value(worker, ["cpu"], 4, 1,
                                                      at=time.time() - age))
    yield names
    client.hdel(heartbeat.HOSTS_KEY, *workers)
    client.delete(*(heartbeat.HEARTBEAT_PREFIX + w for w in workers))


def test_the_dashboard_and_metrics_list_hosts_and_the_gone_one(client, charlie, two_hosts):
    gone, alive = two_hosts
    client.force_login(charlie)
    page = client.get("/staff/").content.decode()
    assert re.search(rf'<tr class="host-gone"><td>{gone}</td><td class="status-gone">gone</td>'
                     r"<td>cpu</td><td>4</td><td>0</td><td>0</td><td>10\d\.\d s ago", page)
    assert re.search(rf'<tr class="host-alive"><td>{alive}</td><td class="status-alive">alive'
                     r"</td><td>cpu</td><td>4</td><td>1</td>", page)
    text = client.get("/metrics").content.decode()
    assert f'judge_host_up{{host="{gone}",state="gone"}} 0.0' in text
    assert f'judge_host_up{{host="{alive}",state="alive"}} 1.0' in text
    assert f'judge_host_info{{host="{alive}",queues="cpu"}} 1.0' in text
    assert f'judge_host_capacity{{host="{alive}"}} 4.0' in text
    assert f'judge_host_in_flight{{host="{alive}"}} 1.0' in text
    assert re.search(rf'^judge_host_last_heartbeat_age_seconds\{{host="{gone}"\}} 10\d', text,
                     re.M)


def test_the_capacity_is_the_pool_of_the_worker_that_beats() -> None:
    class Pool:
        num_processes = 4

    class Controller:  # Celery's WorkController (worker_shutdown's sender)
        pool, concurrency = Pool(), 2

    class Consumer:  # worker_ready's sender
        controller, pool = Controller(), None

    assert heartbeat._concurrency(Consumer()) == 4
    assert heartbeat._concurrency(Controller()) == 4
    Controller.pool = None
    assert heartbeat._concurrency(Consumer()) == 2
    assert heartbeat._concurrency(object()) is None


def test_a_stopped_worker_says_goodbye_and_is_remembered(settings) -> None:
    class Sender:
        hostname = f"cpu@host-stop-{time.monotonic_ns()}"
        concurrency = 3

        class app:  # noqa: N801
            class amqp:  # noqa: N801
                class queues:  # noqa: N801
                    consume_from = {"cpu": None}

    settings.JUDGE_HOST_NAME = Sender.hostname.partition("@")[2]
    client = heartbeat.redis_client()
    try:
        heartbeat._stop_heartbeat(sender=Sender)
        assert client.get(heartbeat.HEARTBEAT_PREFIX + Sender.hostname) is None
        kept = client.hget(heartbeat.HOSTS_KEY, Sender.hostname)
        [host] = hosts_from_beats([json.loads(kept)], time.time())
        assert (host["state"], host["capacity"], host["queues"]) == ("stopped", 3, ["cpu"])
    finally:
        client.hdel(heartbeat.HOSTS_KEY, Sender.hostname)


def test_a_judging_claimed_by_a_host_that_vanishes_is_finished_by_another(
    alice, problem, enqueued, monkeypatch, settings
):
    """Host A claims a judging and vanishes mid-judging (no more heartbeats, in the database
    or Redis); the reaper gives it back; host B's worker runs the Celery task and judges it,
    once; host A's late writes, should it come back, change nothing."""
    calls: list[str] = []

    def judged_here(package: Any, source: str, mode: Any, on_progress: Any) -> JudgeResult:
        calls.append(engine.host_name())
        test = CaseResult("public_small", True, Verdict.AC, "", None, 3.0)
        on_progress(test)
        return JudgeResult(Verdict.AC, [test], None, {"host": engine.host_name()}, "", "v-test-1")

    monkeypatch.setattr(services, "_judge_source", judged_here)
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    process = engine.judge_engine()
    monkeypatch.setattr(process, "worker_name", "")
    sub = services.submission_create(alice, problem, GOOD, "run")

    # Host A takes it, then its machine goes away: the claim stays, nothing beats any more.
    host_a = f"host-a-{time.monotonic_ns()}"
    settings.JUDGE_HOST_NAME = host_a
    process.worker_name = f"cpu@{host_a}"
    token_a = services._claim(Submission.objects.select_related("problem").get(pk=sub.pk))
    assert isinstance(token_a, uuid.UUID)  # not a Claim (busy, taken)
    claimed = Submission.objects.get(pk=sub.pk)
    assert (claimed.status, claimed.worker) == (Status.RUNNING, f"cpu@{host_a}")
    redis = heartbeat.redis_client()
    try:
        heartbeat.record(redis, heartbeat.beat_value(f"cpu@{host_a}", ["cpu"], 2, 1,
                                                     at=time.time() - 60))

        def seen() -> dict[str, Any]:
            return next(h for h in ops_figures().hosts if h["host"] == host_a)

        assert (seen()["state"], seen()["held"]) == ("gone", 1)  # staff see what it holds

        assert reaper.submission_reap_stuck()["requeued"] == 0  # its heartbeat is fresh yet
        later = timezone.now() + timedelta(seconds=settings.JUDGE_HEARTBEAT_STALE_S + 1)
        assert reaper.submission_reap_stuck(now=later)["requeued"] == 1
        assert enqueued[-1][0] == sub.pk  # sent again, to whichever host takes it
        assert Submission.objects.get(pk=sub.pk).status == Status.QUEUED
        assert seen()["held"] == 0
    finally:
        redis.hdel(heartbeat.HOSTS_KEY, f"cpu@{host_a}")
        redis.delete(heartbeat.HEARTBEAT_PREFIX + f"cpu@{host_a}")

    # Host B's worker receives the message.
    settings.JUDGE_HOST_NAME = "host-b"
    process.worker_name = "cpu@host-b"
    assert tasks.judge_submission.apply(args=(sub.pk,)).get().startswith("judged")
    done = Submission.objects.get(pk=sub.pk)
    assert (done.status, done.verdict, done.worker) == (Status.DONE, "AC", "cpu@host-b")
    assert done.environment["host"] == "host-b" and done.attempts == 2
    assert calls == ["host-b"]  # judged once, by B

    # Host A comes back and writes what it had: its token is stale, nothing changes.
    assert services._finish_internal(sub.pk, token_a, "internal error: late") == 0
    assert not Submission.objects.filter(pk=sub.pk, attempt_token=token_a).update(
        heartbeat_at=timezone.now()
    )
    assert tasks.judge_submission.apply(args=(sub.pk,)).get().startswith("skipped")
    final = Submission.objects.get(pk=sub.pk)
    assert (final.verdict, final.environment["host"]) == ("AC", "host-b") and calls == ["host-b"]


@pytest.mark.django_db
def test_a_host_silent_for_a_day_is_forgotten(settings) -> None:
    worker = f"cpu@host-old-{time.monotonic_ns()}"
    settings.JUDGE_HOST_NAME = worker.partition("@")[2]
    client = heartbeat.redis_client()
    old = time.time() - heartbeat.HOST_FORGET_S - 5
    heartbeat.record(client, heartbeat.beat_value(worker, ["cpu"], 1, 0, at=old))
    try:
        assert settings.JUDGE_HOST_NAME not in {h["host"] for h in ops_figures().hosts}
        assert client.hget(heartbeat.HOSTS_KEY, worker) is None
    finally:
        client.hdel(heartbeat.HOSTS_KEY, worker)
        client.delete(heartbeat.HEARTBEAT_PREFIX + worker)

"""The Celery side and the liveness of judgings: task options, routing by device (and the GPU
problems judged on CPU when the site has no GPU worker), the reaper on beat's maintenance queue,
heartbeats, lost messages, the per-user "busy" hand-off, and faults of the database."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.db.models.query import QuerySet
from django.utils import timezone
from judge_cast import FakeEngine, make_problem

from judge_site.celery import app
from judge_site.submissions import broker, faults, reaper, routing, services, tasks
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db(transaction=True)

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"
TRITON = {"requires": ["triton"], "limits": {"time_s": 30}}


def test_the_reaper_is_scheduled_for_beat_on_the_maintenance_queue(settings):
    entries = {e["task"]: e for e in app.conf.beat_schedule.values()}
    reaper = entries["submissions.reap_stuck"]
    assert reaper["schedule"] == settings.JUDGE_REAP_EVERY_S <= 30
    assert reaper["options"]["queue"] == settings.JUDGE_MAINTENANCE_QUEUE
    assert reaper["options"]["expires"] <= reaper["schedule"]  # runs never pile up
    route = app.amqp.router.route({}, tasks.reap_stuck.name)
    assert route["queue"].name == settings.JUDGE_MAINTENANCE_QUEUE


def test_the_judge_task_is_late_acked_and_calls_the_service(alice, enqueued, fake_engine):
    assert tasks.judge_submission.acks_late is True
    problem = make_problem()
    sub = services.submission_create(alice, problem, "ok = 1\n", "run")
    assert tasks.judge_submission.run(sub.pk) == "judged: AC"
    assert Submission.objects.get(pk=sub.pk).status == Status.DONE


def test_the_judge_task_retries_database_and_broker_faults():
    from kombu.exceptions import OperationalError as BrokerError

    task = tasks.judge_submission
    assert OperationalError in task.autoretry_for and BrokerError in task.autoretry_for
    assert task.max_retries and task.retry_backoff


def test_gpu_problems_go_to_the_gpu_queue_when_the_site_has_gpu_workers(db, settings):
    settings.JUDGE_GPU_ENABLED = True
    assert routing.queue_for(make_problem(60, slug="g", device="gpu")) == "gpu"
    assert routing.queue_for(make_problem(61, slug="a", device="any")) == "cpu"
    assert routing.queue_for(make_problem(62, slug="c", device="cpu")) == "cpu"


def test_without_gpu_workers_a_triton_problem_is_judged_on_cpu_and_says_so(
    alice, enqueued, fake_engine, settings
):
    settings.JUDGE_GPU_ENABLED = False
    problem = make_problem(56, slug="triton", device="gpu", manifest=TRITON)
    route = routing.judging_route(problem)
    assert route.queue == "cpu" and "Triton's interpreter" in route.note
    sub = services.submission_create(alice, problem, GOOD, "run")
    assert enqueued == [(sub.pk, "cpu", 0)]
    services.submission_judge(sub.pk)
    sub.refresh_from_db()
    assert sub.verdict == "AC"
    assert "Triton's interpreter" in sub.environment["routing"]


def test_without_gpu_workers_another_gpu_problem_is_refused_at_submit_time(
    alice, enqueued, settings
):
    settings.JUDGE_GPU_ENABLED = False
    problem = make_problem(57, slug="cuda-only", device="gpu")
    with pytest.raises(services.SubmissionError) as refused:
        services.submission_create(alice, problem, GOOD, "run")
    assert refused.value.field == "problem" and "no GPU worker" in refused.value.message
    assert not Submission.objects.exists() and not enqueued


def test_a_worker_that_stops_beating_is_noticed_in_seconds(alice, problem, enqueued, settings):
    sub = services.submission_create(alice, problem, GOOD, "run")
    now = timezone.now()
    token = Submission.new_token()
    Submission.objects.filter(pk=sub.pk).update(
        status=Status.RUNNING, started_at=now - timedelta(seconds=120), attempts=1,
        attempt_token=token, heartbeat_at=now - timedelta(seconds=5),
    )  # fmt: skip
    assert reaper.submission_reap_stuck(now=now)["requeued"] == 0  # alive: beating
    later = now + timedelta(seconds=settings.JUDGE_HEARTBEAT_STALE_S)
    assert reaper.submission_reap_stuck(now=later)["requeued"] == 1
    sub.refresh_from_db()
    assert (sub.status, sub.attempt_token, sub.queued_at) == (Status.QUEUED, None, later)
    assert enqueued[-1] == (sub.pk, "cpu", 0)
    # The dead worker's late verdict touches nothing.
    assert not Submission.objects.filter(pk=sub.pk, attempt_token=token).update(verdict="AC")


def test_the_heartbeat_is_refreshed_while_judging(alice, problem, enqueued, monkeypatch):
    monkeypatch.setattr(faults, "HEARTBEAT_EVERY_S", 0.05)
    sub = services.submission_create(alice, problem, GOOD, "run")
    beats = []
    engine = FakeEngine()

    def slow(package, source, mode, on_progress):
        for _ in range(2):
            before = Submission.objects.get(pk=sub.pk).heartbeat_at
            deadline = time.monotonic() + 10
            while Submission.objects.get(pk=sub.pk).heartbeat_at == before:
                assert time.monotonic() < deadline, "no heartbeat while judging"
                time.sleep(0.02)
            beats.append(Submission.objects.get(pk=sub.pk).heartbeat_at)
        return engine(package, source, mode, on_progress)

    monkeypatch.setattr(services, "_judge_source", slow)
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    assert services.submission_judge(sub.pk).action == "judged"
    assert len(beats) == 2 and beats[0] < beats[1]


def test_a_queued_judging_whose_message_was_lost_is_sent_again(
    alice, problem, enqueued, monkeypatch, settings
):
    sub = services.submission_create(alice, problem, GOOD, "run")
    later = timezone.now() + timedelta(seconds=settings.JUDGE_REQUEUE_AFTER_S + 1)
    monkeypatch.setattr(broker, "live_submission_ids", lambda queues, held: {sub.pk})
    assert reaper.submission_reap_stuck(now=later)["resent"] == 0  # its message waits
    monkeypatch.setattr(broker, "live_submission_ids", lambda queues, held: set())
    assert reaper.submission_reap_stuck(now=later) == {"requeued": 0, "failed": 0, "resent": 1}
    assert enqueued[-1] == (sub.pk, "cpu", 0)
    assert reaper.submission_reap_stuck(now=later)["resent"] == 0  # not again at once
    monkeypatch.setattr(broker, "live_submission_ids", lambda queues, held: None)  # unreadable
    again = later + timedelta(seconds=settings.JUDGE_REQUEUE_AFTER_S + 1)
    assert reaper.submission_reap_stuck(now=again)["resent"] == 1


def test_the_broker_look_finds_a_waiting_judging_message(settings):
    import redis

    queue = f"cpu-test-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        tasks.judge_submission.apply_async((424242,), queue=queue)
        assert 424242 in (broker.live_submission_ids([queue], 60) or set())
        assert 424242 not in (broker.live_submission_ids(["cpu-test-none"], 60) or set())
    finally:
        client.delete(queue)
        client.close()


def test_one_users_judgings_all_finish_one_at_a_time(alice, bob, problem, enqueued, monkeypatch):
    """Judgings of one user taken while another of theirs runs are left queued ("busy"), with
    no new message; each judging that ends sends the next, so none is ever dropped."""
    subs = [services.submission_create(alice, problem, GOOD, "run") for _ in range(3)]
    engine = FakeEngine()
    busy = []

    def judging(package, source, mode, on_progress):
        if not busy:  # while the first runs, workers take the others: both busy
            busy.extend(services.submission_judge(s.pk).action for s in subs[1:])
        return engine(package, source, mode, on_progress)

    monkeypatch.setattr(services, "_judge_source", judging)
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    enqueued.clear()
    services.submission_judge(subs[0].pk)
    assert busy == ["busy", "busy"]
    while enqueued:  # deliver each message as a worker would
        sid, _, _ = enqueued.pop(0)
        services.submission_judge(sid)
    assert [Submission.objects.get(pk=s.pk).status for s in subs] == [Status.DONE] * 3
    assert [Submission.objects.get(pk=s.pk).attempts for s in subs] == [1, 1, 1]
    assert len(engine.calls) == 3


def test_the_verdict_waits_out_a_database_restart(alice, problem, enqueued, fake_engine, monkeypatch):
    monkeypatch.setattr(faults.time, "sleep", lambda s: None)
    real_update = QuerySet.update
    failures = []

    def flaky_update(self, **kwargs):
        if kwargs.get("status") == Status.DONE and len(failures) < 2:
            failures.append(1)
            raise OperationalError("the database system is shutting down")
        return real_update(self, **kwargs)

    monkeypatch.setattr(QuerySet, "update", flaky_update)
    sub = services.submission_create(alice, problem, GOOD, "run")
    assert services.submission_judge(sub.pk).action == "judged"
    assert len(failures) == 2
    sub.refresh_from_db()
    assert (sub.status, sub.verdict, sub.attempts) == (Status.DONE, "AC", 1)


def test_a_broker_that_is_down_at_submit_time_loses_nothing(alice, problem, monkeypatch):
    from kombu.exceptions import OperationalError as BrokerError

    def down(*args, **kwargs):
        raise BrokerError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(tasks.judge_submission, "apply_async", down)
    sub = services.submission_create(alice, problem, GOOD, "run")  # stored; no exception
    assert Submission.objects.get(pk=sub.pk).status == Status.QUEUED  # the reaper resends it


def test_the_problem_page_says_where_this_site_judges_it(client, alice, settings):
    settings.JUDGE_GPU_ENABLED = False
    make_problem(56, slug="triton", device="gpu", manifest=TRITON)
    make_problem(57, slug="cuda-only", device="gpu")
    make_problem(48)
    client.force_login(alice)
    assert "Triton&#x27;s interpreter" in client.get("/problems/56/").content.decode()
    assert "cannot be judged here" in client.get("/problems/57/").content.decode()
    assert 'id="judging-note"' not in client.get("/problems/48/").content.decode()
    settings.JUDGE_GPU_ENABLED = True
    assert 'id="judging-note"' not in client.get("/problems/56/").content.decode()


def test_a_restarted_worker_gives_back_its_judgings_at_once(
    alice, bob, problem, enqueued, monkeypatch
):
    from judge_site.worker.engine import judge_engine

    monkeypatch.setattr(judge_engine(), "worker_name", "cpu@box")
    mine = services.submission_create(alice, problem, GOOD, "run")
    theirs = services.submission_create(bob, problem, GOOD, "run")
    for sub in (mine, theirs):
        services._claim(Submission.objects.get(pk=sub.pk))
    Submission.objects.filter(pk=theirs.pk).update(worker="cpu@other")
    assert Submission.objects.get(pk=mine.pk).worker == "cpu@box"
    # The worker died mid-judging; at its next start (heartbeat still fresh):
    assert reaper.submission_give_back_own("cpu@box") == 1
    assert Submission.objects.get(pk=mine.pk).status == Status.QUEUED
    assert Submission.objects.get(pk=theirs.pk).status == Status.RUNNING
    assert enqueued[-1] == (mine.pk, "cpu", 0)


def test_a_workers_start_names_the_one_engine_of_its_process(alice, problem, enqueued, monkeypatch):
    """celeryd_init names this process's engine (judge_engine(), built once): its sandboxes
    carry the name as a label, and its claims record it."""
    from judge_site.worker.engine import WORKER_LABEL, judge_engine

    engine = judge_engine()
    monkeypatch.setattr(engine, "worker_name", "")
    assert engine.labels == {}
    tasks._name_sandboxes(sender="cpu@box-7", options={"queues": "cpu"})
    assert judge_engine() is engine and engine.labels == {WORKER_LABEL: "cpu@box-7"}
    sub = services.submission_create(alice, problem, GOOD, "run")
    services._claim(Submission.objects.get(pk=sub.pk))
    assert Submission.objects.get(pk=sub.pk).worker == "cpu@box-7"

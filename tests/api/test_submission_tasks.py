"""The Celery side: task names, routing by device, the reaper's schedule for `celery beat`."""

from __future__ import annotations

import pytest
from judge_cast import make_problem

from judge_site.celery import app
from judge_site.submissions import services, tasks
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_reaper_is_scheduled_for_beat():
    app.loader.import_default_modules()
    app.finalize()
    entries = {e["task"]: e["schedule"] for e in app.conf.beat_schedule.values()}
    assert entries.get("submissions.reap_stuck") == tasks.REAP_EVERY_S


def test_the_judge_task_is_late_acked_and_calls_the_service(alice, enqueued, fake_engine):
    assert tasks.judge_submission.acks_late is True
    problem = make_problem()
    sub = services.submission_create(alice, problem, "ok = 1\n", "run")
    assert tasks.judge_submission.run(sub.pk) == "judged: AC"
    assert Submission.objects.get(pk=sub.pk).status == Status.DONE


def test_gpu_problems_go_to_the_gpu_queue(db):
    assert services.queue_for(make_problem(60, slug="g", device="gpu")) == "gpu"
    assert services.queue_for(make_problem(61, slug="a", device="any")) == "cpu"
    assert services.queue_for(make_problem(62, slug="c", device="cpu")) == "cpu"

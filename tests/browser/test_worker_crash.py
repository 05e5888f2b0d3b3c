"""A worker killed mid-judging (SIGKILL to its whole session, as when its machine dies): the
submission is not lost. The reaper of stuck judgings (celery beat, submissions.reap_stuck)
queues it again once the dead worker's heartbeat is JUDGE_HEARTBEAT_STALE_S old (seconds, not
the task's hard time limit), a new worker judges it to the end,
and the sandbox the dead worker left on the Docker engine is removed by the new worker (of
the same name) when it starts (judge_site/worker/engine.py, remove_own_sandboxes)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from browser_kit import PROBLEM_48, JudgeWorker, browser_backend, private_queue

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# A correct solution whose import takes a few seconds: the worker is killed inside it.
SLOW_TO_LOAD = "import time\n\ntime.sleep(4)\n" + (
    PROBLEM_48 / "solutions" / "AC" / "gather.py"
).read_text()


def wait_for(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.2)


def test_a_judging_survives_its_worker_being_killed(problem48, monkeypatch):
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from judge_site.submissions import reaper, services
    from judge_site.submissions.models import Status, Submission

    docker_client = None
    if browser_backend(docker=True) == "docker":
        import docker

        docker_client = docker.from_env()

    def sandboxes() -> list[object]:
        """The sandboxes of this test's workers (both carry the node name queue@host)."""
        assert docker_client is not None
        label = f"tensor-judge.worker={queue}@{socket.gethostname()}"
        return docker_client.containers.list(all=True, sparse=True, filters={"label": label})

    def current() -> Submission:
        return Submission.objects.get(pk=sub.pk)

    user = get_user_model().objects.create_user("frank", password="frank-pass-123")
    queue = private_queue(monkeypatch, "crash")
    first = JudgeWorker(queue, name="worker-killed", docker=True)
    first.start()
    try:
        sub = services.submission_create(user, problem48, SLOW_TO_LOAD, "run")
        wait_for(lambda: current().status == Status.RUNNING, 60, "the first worker's claim")
        if docker_client is not None:
            wait_for(lambda: bool(sandboxes()), 60, "the first worker's sandbox")
        time.sleep(1.0)  # inside the submission's slow import
        first.crash()
    finally:
        first.stop()

    stuck = current()
    assert (stuck.status, stuck.attempts) == (Status.RUNNING, 1)
    orphans = {c.id for c in sandboxes()} if docker_client is not None else set()
    if docker_client is not None:
        assert orphans, "the killed worker's sandbox should still be there, orphaned"

    # Beat's reaper: not while the heartbeat is fresh; once it is stale, queued again.
    assert reaper.submission_reap_stuck()["requeued"] == 0
    later = timezone.now() + timedelta(seconds=settings.JUDGE_HEARTBEAT_STALE_S + 1)
    assert reaper.submission_reap_stuck(now=later) == {"requeued": 1, "failed": 0, "resent": 0}
    assert current().status == Status.QUEUED

    # A new worker of the same name: at its start it removes the sandbox its previous run left.
    second = JudgeWorker(queue, name="worker-after-crash", docker=True)
    second.start()
    try:
        wait_for(lambda: current().status == Status.DONE, 240, "the judging after the crash")
    finally:
        second.stop()

    done = current()
    assert done.verdict == "AC", f"{done.verdict}: {done.message} {done.tests}"
    assert done.attempts == 2
    assert done.tests and all(t["verdict"] == "AC" for t in done.tests)
    if docker_client is not None:
        left = {c.id for c in sandboxes()}
        assert not (left & orphans), "the dead worker's sandbox survived the new worker's sweep"
        assert not left, "the second judging left its own sandbox behind"
        assert "a previous run of this worker left" in second.log()

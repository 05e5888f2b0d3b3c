"""The sweep of orphaned sandboxes (judge_site/worker/engine.py, JudgeEngine.reap_orphans): a
worker that died mid-judging leaves its container running; every worker removes sandboxes older than
any judging can last, at its start and at most once a minute before a judging."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from django.test import override_settings

from judge_site.worker.engine import JudgeEngine
from tests.conftest import require_docker
from tests.fake_backend import FakeBackend, RecordingBackend

BASE_IMAGE = "tensor-judge-base:bookworm"


@override_settings(JUDGE_ORPHAN_AGE_S=420)
def test_a_sweep_uses_the_orphan_age_and_is_throttled() -> None:
    backend, engine = RecordingBackend(FakeBackend(orphans=2)), JudgeEngine()
    assert engine.reap_orphans(backend, force=True) == 2
    assert backend.reaps == [420.0]
    assert engine.reap_orphans(backend) == 0  # within the minute: no second listing
    assert backend.reaps == [420.0]
    assert engine.reap_orphans(backend, force=True) == 2
    assert backend.starts == []  # a sweep starts no sandbox


def test_a_failed_sweep_is_logged_and_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    backend = RecordingBackend(FakeBackend(reap_fails="the Docker engine is gone"))
    assert JudgeEngine().reap_orphans(backend, force=True) == 0
    assert backend.starts == []
    assert "the Docker engine is gone" in caplog.text


@pytest.mark.docker
def test_a_real_orphan_is_removed_and_a_live_sandbox_kept() -> None:
    """Two labelled containers on the real engine: one created 'long ago' (its creation label
    is what the sweep reads), one just now (a judging in progress on another worker)."""
    require_docker()
    import docker

    from sandbox.host.backends.docker import LABEL, LABEL_CREATED

    client = docker.from_env()
    try:
        client.images.get(BASE_IMAGE)
    except docker.errors.ImageNotFound:
        pytest.fail(f"{BASE_IMAGE} is missing: run scripts/build_images")
    run = uuid.uuid4().hex
    made: dict[str, Any] = {}
    for name, age_s in (("orphan", 3600), ("live", 0)):
        made[name] = client.containers.run(
            BASE_IMAGE,
            ["sleep", "300"],
            detach=True,
            network_mode="none",
            labels={LABEL: "1", LABEL_CREATED: str(int(time.time()) - age_s), "sweep-test": run},
        )
    try:
        with override_settings(JUDGE_BACKEND="docker", JUDGE_ORPHAN_AGE_S=420):
            # The orphan goes, by this sweep or by a judge's or another test run's sweep on the
            # same engine (this run does not own it): what is left below is the assertion.
            JudgeEngine().reap_orphans(force=True)

        def left() -> set[str]:
            return {
                c.id
                for c in client.containers.list(
                    all=True, sparse=True, filters={"label": f"sweep-test={run}"}
                )
            }

        # A removal another sweep began a moment earlier (Docker's 409 "already in progress"
        # to this one) ends on its own: wait for it, bounded.
        deadline = time.monotonic() + 60
        while made["orphan"].id in left() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert made["orphan"].id not in left()
        assert made["live"].id in left()
    finally:
        for container in made.values():
            try:
                container.remove(force=True)
            except (docker.errors.NotFound, docker.errors.APIError):  # gone, or going
                pass


def test_the_default_orphan_age_outlasts_a_warm_sandboxs_idle_time_and_a_judging() -> None:
    """A pooled sandbox's age counts from its start, up to the pool's idle limit before its
    judging: a sweep must never take one that a live judging holds."""
    import inspect

    from django.conf import settings

    from sandbox.host.backends.docker import DockerBackend

    idle_s = inspect.signature(DockerBackend.__init__).parameters["pool_max_idle_s"].default
    assert settings.JUDGE_ORPHAN_AGE_S >= settings.CELERY_TASK_TIME_LIMIT + idle_s + 60

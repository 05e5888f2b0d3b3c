"""A Celery task round trip through the real Redis broker and a real worker process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_site.celery import app
from judge_site.core.tasks import ping

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def alive_file(tmp_path: Path) -> Path:
    return tmp_path / "alive"


@pytest.fixture
def worker_queue(alive_file: Path) -> Iterator[str]:
    """Start `celery worker --pool solo` on a queue of its own (other runs may share Redis)."""
    queue = f"cpu-test-{uuid.uuid4().hex[:8]}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "judge_site",
            "worker",
            "-Q",
            queue,
            "--pool",
            "solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"{queue}@%h",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env={**os.environ, "JUDGE_ALIVE_FILE": str(alive_file)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        yield queue
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # warm shutdown of the worker we started
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        assert "core.ping" in out  # the worker registered the task (its log lists tasks)


@pytest.mark.slow
def test_a_task_runs_in_a_real_worker(worker_queue: str, alive_file: Path) -> None:
    result = ping.apply_async(queue=worker_queue)
    assert result.get(timeout=90) == "pong"
    assert result.successful()
    # The containers' health check (docker-compose.yml): the ready worker's main loop keeps
    # touching JUDGE_ALIVE_FILE (every heartbeat.ALIVE_EVERY_S).
    assert alive_file.exists()
    first = alive_file.stat().st_mtime_ns
    deadline = time.monotonic() + 60
    while alive_file.stat().st_mtime_ns == first:
        assert time.monotonic() < deadline, "the worker stopped touching its alive file"
        time.sleep(0.5)


def test_tasks_go_to_the_cpu_queue_by_default() -> None:
    route = app.amqp.router.route({}, ping.name)
    assert route["queue"].name == "cpu"


def test_celery_only_speaks_json_and_acks_late() -> None:
    conf = app.conf
    assert conf.task_serializer == "json" and conf.result_serializer == "json"
    assert list(conf.accept_content) == ["json"]
    assert conf.task_acks_late is True and conf.worker_prefetch_multiplier == 1
    assert conf.task_soft_time_limit < conf.task_time_limit
    assert conf.broker_transport_options["visibility_timeout"] > conf.task_time_limit


def test_a_worker_stop_is_a_soft_shutdown_well_within_the_stop_grace() -> None:
    """SIGTERM is Celery's cold shutdown with a soft part (the running judgings cancelled and
    queued again after it) that ends far before compose's 60 s stop_grace_period; the judging
    stopped mid-way: test_platform_faults.py."""
    assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost
    assert 0 < app.conf.worker_soft_shutdown_timeout <= 20
    worker_role = (ROOT / "docker" / "entrypoint.sh").read_text().split("\nworker)")[1]
    assert 'export REMAP_SIGTERM="${REMAP_SIGTERM:-SIGQUIT}"' in worker_role.split("\n    ;;")[0]
    assert "stop_grace_period: 60s" in (ROOT / "docker-compose.yml").read_text()

"""The warm pool as the site's workers use it (judge_site/worker/engine.py): off unless a
worker process enables it; once on, the second judging of a worker process runs in a sandbox
started ahead (recorded as ``environment["sandbox"] == "pooled"``) with the same verdict, and
the pool's sandboxes are gone after the worker closes its pools or shuts down."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from judge_site.worker.backends import remove_own_pooled
from judge_site.worker.engine import JudgeEngine
from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.package import load_package
from sandbox.host.backends.docker_pool import OWNER_LABEL, pool_owner
from tests.conftest import require_docker

P48 = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"
POOLED = "tensor-judge.pooled=1"


def test_a_one_shot_process_never_pools() -> None:
    with override_settings(JUDGE_BACKEND="docker", JUDGE_SANDBOX_POOL_SIZE=3):
        backend = JudgeEngine().backend(requires=[])
    assert getattr(backend, "pool", "none") is None  # enable_pool() was never called here


@pytest.fixture
def pooling() -> Iterator[JudgeEngine]:
    """An engine as a worker process's: pooling."""
    require_docker()
    with override_settings(JUDGE_BACKEND="docker", JUDGE_SANDBOX_POOL_SIZE=1):
        engine = JudgeEngine()
        engine.enable_pool(1)
        try:
            yield engine
        finally:
            engine.close()
            remove_own_pooled()


@pytest.mark.docker
@pytest.mark.slow
def test_the_second_judging_of_a_worker_runs_in_a_pooled_sandbox(pooling: JudgeEngine) -> None:
    engine = pooling
    import docker

    package = load_package(P48)
    correct = (P48 / "solutions" / "AC" / "gather.py").read_text()
    first = engine.judge(package, correct, Mode.RUN)
    assert first.verdict == Verdict.AC, first.message
    assert first.environment["sandbox"] == "fresh"  # a miss: the pool learns the limits

    backend = engine.backend(requires=[])
    assert backend is engine.backend(requires=[])  # one per image and process
    pool = backend.pool  # type: ignore[attr-defined]
    deadline = time.monotonic() + 90
    while pool.ready_count() < 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pool.ready_count() == 1, "the pool did not start a sandbox ahead"

    second = engine.judge(package, correct, Mode.RUN)
    assert second.verdict == Verdict.AC, second.message
    assert second.environment["sandbox"] == "pooled"
    assert [t.verdict for t in second.tests] == [t.verdict for t in first.tests]
    wrong = engine.judge(
        package, "def embed(ids, weight, pad_id):\n    return 0\n", Mode.RUN
    )
    assert wrong.verdict != Verdict.AC  # a pooled sandbox is used once: no state carried over

    engine.close()
    remove_own_pooled()
    client = docker.from_env()
    # Only this run's pools: a judge's stack or another test run beside it pools its own.
    ours = {"label": [POOLED, f"{OWNER_LABEL}={pool_owner()}"]}
    # A refill in flight sees the closed pool and removes its sandbox.
    assert not _left_after(client, ours, within_s=10)


def _left_after(client: Any, filters: dict[str, Any], within_s: float) -> list[Any]:
    """The containers matching ``filters`` still there, waiting up to ``within_s`` for them
    to go (a removal may still be on its way)."""
    deadline = time.monotonic() + within_s
    while (
        left := client.containers.list(all=True, sparse=True, filters=filters)
    ) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left

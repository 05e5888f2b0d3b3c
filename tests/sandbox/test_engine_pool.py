"""The warm pool as the site's workers use it (judge_site/submissions/engine.py): off unless a
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

from judge_site.submissions import engine
from sandbox.backends.docker_pool import OWNER_LABEL, pool_owner
from sandbox.contracts import Mode, Verdict
from sandbox.problem import load_package
from tests.conftest import require_docker

P48 = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"
POOLED = "tensor-judge.pooled=1"


def test_a_one_shot_process_never_pools() -> None:
    with override_settings(JUDGE_BACKEND="docker", JUDGE_SANDBOX_POOL_SIZE=3):
        backend = engine.backend_from_settings(requires=[])
    assert getattr(backend, "pool", "none") is None  # enable_pool() was never called here


@pytest.fixture
def pooling() -> Iterator[None]:
    require_docker()
    with override_settings(JUDGE_BACKEND="docker", JUDGE_SANDBOX_POOL_SIZE=1):
        engine.enable_pool(1)
        try:
            yield
        finally:
            engine.close_pools()
            engine.remove_own_pooled()


@pytest.mark.docker
@pytest.mark.slow
def test_the_second_judging_of_a_worker_runs_in_a_pooled_sandbox(pooling: None) -> None:
    import docker

    package = load_package(P48)
    correct = (P48 / "solutions" / "AC" / "gather.py").read_text()
    first = engine.judge_source(package, correct, Mode.RUN)
    assert first.verdict == Verdict.AC, first.message
    assert first.environment["sandbox"] == "fresh"  # a miss: the pool learns the limits

    backend = engine.backend_from_settings(requires=[])
    assert backend is engine.backend_from_settings(requires=[])  # one per image and process
    pool = backend.pool  # type: ignore[attr-defined]
    deadline = time.monotonic() + 90
    while pool.ready_count() < 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pool.ready_count() == 1, "the pool did not start a sandbox ahead"

    second = engine.judge_source(package, correct, Mode.RUN)
    assert second.verdict == Verdict.AC, second.message
    assert second.environment["sandbox"] == "pooled"
    assert [t.verdict for t in second.tests] == [t.verdict for t in first.tests]
    wrong = engine.judge_source(
        package, "def embed(ids, weight, pad_id):\n    return 0\n", Mode.RUN
    )
    assert wrong.verdict != Verdict.AC  # a pooled sandbox is used once: no state carried over

    engine.close_pools()
    engine.remove_own_pooled()
    client = docker.from_env()
    # Only this run's pools: a judge's stack or another test run beside it pools its own.
    ours = {"label": [POOLED, f"{OWNER_LABEL}={pool_owner()}"]}
    # A refill in flight sees the closed pool and removes its sandbox.
    assert not _left_after(client, ours, within_s=10)


@pytest.mark.docker
@pytest.mark.slow
def test_a_worker_keeps_the_baselines_sandbox_between_submits(pooling: None) -> None:
    """The baseline's sibling holds only trusted code: the second Submit of a worker process
    reuses it (``baseline_sandbox == "kept"``) with the same verdict and a believed speedup,
    while the student's sandbox is still a new one; a wrong file after it is still wrong."""
    import docker

    package = load_package(P48)
    correct = (P48 / "solutions" / "AC" / "gather.py").read_text()
    first = engine.judge_source(package, correct, Mode.SUBMIT)
    assert first.verdict == Verdict.AC, first.message
    assert first.environment["baseline_sandbox"] in ("fresh", "pooled")
    second = engine.judge_source(package, correct, Mode.SUBMIT)
    assert second.verdict == Verdict.AC, second.message
    assert second.environment["baseline_sandbox"] == "kept"
    assert second.environment["sandbox"] in ("fresh", "pooled")  # never the kept one
    assert second.benchmark is not None and 0.5 < second.benchmark.speedup < 2.0
    slow = (P48 / "solutions" / "AC" / "python_loops.py").read_text()
    third = engine.judge_source(package, slow, Mode.SUBMIT)
    assert third.verdict == Verdict.AC and third.benchmark is not None
    assert (
        third.benchmark.speedup < 0.5
    )  # the kept baseline times its own kernel, not the last file
    keeper = engine.backend_from_settings(requires=[]).keeper  # type: ignore[attr-defined]
    assert keeper.reused >= 2 and keeper.idle_count() == 1
    # This process's kept sandbox, by id: other judgings of problem 48 on the machine (the
    # stack's workers, another test session) keep sandboxes of their own.
    ours = [kept.box.container_id for kept in keeper._idle.values()]
    assert len(ours) == 1 and ours[0]

    engine.close_pools()
    client = docker.from_env()
    assert not _left_after(client, {"id": ours}, within_s=10), (
        "closing the pools leaves no kept sandbox behind"
    )


def _left_after(client: Any, filters: dict[str, Any], within_s: float) -> list[Any]:
    """The containers matching ``filters`` still there, waiting up to ``within_s`` for them
    to go (a removal may still be on its way)."""
    deadline = time.monotonic() + within_s
    while (
        left := client.containers.list(all=True, sparse=True, filters=filters)
    ) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left

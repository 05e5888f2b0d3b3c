"""GPU work stays on GPUs (issue 38): rejudges and package checks of a problem that can run on a
GPU go to the queue only GPU workers serve while one is alive (a real heartbeat in Redis), and a
CPU result (Triton's interpreter) never replaces a GPU timing. The queue chosen is asserted: no
Celery worker runs."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import TestCase

from judge_site.staff.models import ProblemVersion, RejudgeItem, RejudgeStatus
from judge_site.staff.services import packages, rejudge
from judge_site.submissions import routing
from judge_site.submissions.models import Status, Submission
from judge_site.worker import heartbeat

ROOT = Path(__file__).resolve().parents[2]
H200 = {"device": "cuda: NVIDIA H200", "backend": "docker"}


@pytest.fixture
def gpu_beat(settings: Any) -> Iterator[Any]:
    """Call it to make a GPU worker's heartbeat live in the real Redis (removed after)."""
    settings.JUDGE_GPU_ENABLED = False
    settings.JUDGE_REJUDGE_QUEUE, settings.JUDGE_CHECK_QUEUE = "rejudge", "rejudge"
    settings.JUDGE_GPU_REJUDGE_QUEUE = "gpu-rejudge"
    client = heartbeat.redis_client()
    name = f"gpu-test-{uuid.uuid4().hex[:8]}@host"
    routing._GPU_SEEN.clear()

    def start() -> None:
        heartbeat.record(client, heartbeat.beat_value(name, ["gpu", "gpu-rejudge"], 1, 0,
                                                      at=time.time()))
        routing._GPU_SEEN.clear()

    yield start
    client.delete(heartbeat.HEARTBEAT_PREFIX + name)
    client.hdel(heartbeat.HOSTS_KEY, name)
    routing._GPU_SEEN.clear()


def _done(user: Any, problem: Any, environment: dict[str, Any]) -> Submission:
    return Submission.objects.create(user=user, problem=problem, mode="submit", code="x = 1",
                                     status=Status.DONE, verdict="AC", problem_version="v-old",
                                     environment=environment)


def _queues(monkeypatch: pytest.MonkeyPatch, actor: Any, problem: Any) -> list[str]:
    sent: list[str] = []
    monkeypatch.setattr(rejudge, "enqueue", lambda name, args, queue: sent.append(queue))
    with TestCase.captureOnCommitCallbacks(execute=True):
        rejudge.rejudge_problem(actor, problem)
    return sent


@pytest.mark.django_db
def test_a_gpu_problems_rejudge_goes_to_gpu_workers_only_while_one_is_alive(
    alice: Any, charlie: Any, problem: Any, gpu_beat: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem.device = "gpu"
    problem.save(update_fields=["device"])
    _done(alice, problem, H200)
    assert _queues(monkeypatch, charlie, problem) == ["rejudge"]  # no GPU worker: the CPU's
    gpu_beat()
    assert _queues(monkeypatch, charlie, problem) == ["gpu-rejudge"]
    problem.device = "cpu"  # a CPU problem never goes to the GPU workers
    problem.save(update_fields=["device"])
    Submission.objects.update(environment={"device": "cpu"})
    assert _queues(monkeypatch, charlie, problem) == ["rejudge"]


@pytest.mark.django_db
def test_a_problem_for_any_device_is_rejudged_where_it_was_timed(
    alice: Any, bob: Any, charlie: Any, problem: Any, gpu_beat: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem.device = "any"
    problem.save(update_fields=["device"])
    _done(alice, problem, H200)
    _done(bob, problem, {"device": "cpu"})
    gpu_beat()
    assert _queues(monkeypatch, charlie, problem) == ["gpu-rejudge", "rejudge"]


@pytest.mark.django_db
def test_a_gpu_capable_packages_check_runs_on_a_gpu_worker(
    charlie: Any, gpu_beat: Any, settings: Any,
) -> None:
    def version(folder: str) -> int:
        return ProblemVersion.objects.create(
            problem_number=1, ordinal=ProblemVersion.objects.count() + 1, slug=folder,
            title=folder, content_hash=uuid.uuid4().hex, package_dir=str(ROOT / "problems" / folder),
        ).pk

    triton = version("056-triton-embedding-gather")
    cpu = version("048-embedding-tied-head-padding")
    assert packages._check_queue_of(triton) == "rejudge"
    settings.JUDGE_GPU_ENABLED = True  # a site that says it has GPU workers
    assert packages._check_queue_of(triton) == "gpu-rejudge"
    assert packages._check_queue_of(cpu) == "rejudge"
    settings.JUDGE_GPU_ENABLED = False
    gpu_beat()
    assert packages._check_queue_of(triton) == "gpu-rejudge"


@pytest.mark.django_db
def test_a_cpu_result_never_replaces_a_gpu_timing(
    alice: Any, charlie: Any, problem: Any, fake_engine: Any, staff_tasks: list[Any],
) -> None:
    on_gpu = _done(alice, problem, H200)
    with TestCase.captureOnCommitCallbacks(execute=True):
        run = rejudge.rejudge_problem(charlie, problem)
    item = RejudgeItem.objects.get(rejudge=run)
    assert rejudge.rejudge_item_judge(item.pk) == "kept: GPU result"  # the fake engine: a CPU
    item.refresh_from_db()
    assert item.status == RejudgeStatus.FAILED and "GPU worker" in item.message
    on_gpu.refresh_from_db()
    assert on_gpu.environment == H200 and on_gpu.problem_version == "v-old"
    run.refresh_from_db()
    assert run.finished_at is not None
    assert routing.judged_on_gpu(H200) and not routing.judged_on_gpu({"device": "cpu"})


def test_a_pairs_best_compares_gpu_timings_with_gpu_timings_only(
    alice: Any, problem: Any,
) -> None:
    from judge_site.submissions import aggregates

    def row(pk: int, speedup: float, device: str) -> tuple[Any, ...]:
        return (pk, 1, 1, "submit", Status.DONE, "AC", f"2026-01-0{pk}", speedup, "verified",
                None, device)

    interpreted, h200 = row(1, 9.0, "cpu"), row(2, 1.5, "cuda: NVIDIA H200")
    assert aggregates.pair_state([interpreted]).best_speedup == 9.0  # no GPU timing: the CPU's
    both = aggregates.pair_state([interpreted, h200])
    assert (both.best_speedup, both.best_submission_id, both.accepted) == (1.5, 2, 2)
    assert both.best_geomean == 1.5
    # Stored from the database: the device is one of the columns read.
    _done(alice, problem, H200)
    (stored,) = Submission.objects.values_list(*aggregates._SUB_COLUMNS)
    assert stored[-1] == "cuda: NVIDIA H200"

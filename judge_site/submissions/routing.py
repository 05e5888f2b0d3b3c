"""Where a problem's judgings go on this site: the Celery queue of the workers that can judge it
now, or a refusal with its reason (shown on the problem page before the student submits)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from judge_site.catalog.models import Device, Problem
from judge_site.worker.images import SandboxImageError, requirement_images
from sandbox.grader.manifest import requires_of


@dataclass(frozen=True)
class Route:
    """Where a problem's judgings go on this site: a Celery queue, or None (refused, ``note``
    says why); ``note`` also says when a GPU problem is judged on CPU instead."""

    queue: str | None
    note: str = ""


def judging_route(problem: Problem) -> Route:
    """The queue whose workers can judge ``problem`` now.

    GPU problems go to the ``gpu`` queue when this site has GPU workers (JUDGE_GPU_ENABLED).
    Without them, a GPU problem whose kernels are Triton (problem.toml ``requires`` triton,
    mapped to a sandbox image in JUDGE_SANDBOX_IMAGES) is judged by the CPU workers in Triton's
    interpreter (correctness, and a speed comparison on CPU); any other GPU problem cannot be
    judged here and is refused at submit time, never left waiting for a worker that is not there.
    """
    if problem.device != Device.GPU:
        return Route("cpu")
    if settings.JUDGE_GPU_ENABLED:
        return Route("gpu")
    requires = requires_of(problem.manifest or {})
    try:
        mapped = set(requirement_images())
    except SandboxImageError as exc:
        return Route(None, f"problem {problem.number} cannot be judged here: {exc}")
    if "triton" in requires and set(requires) <= mapped:
        return Route(
            "cpu",
            "judged on CPU in Triton's interpreter (this site has no GPU worker): "
            "correctness as on a GPU, times are the CPU's",
        )
    return Route(
        None,
        f"problem {problem.number} needs a GPU and this site has no GPU worker: "
        "it cannot be judged here",
    )


def queue_for(problem: Problem) -> str:
    """The queue of ``problem``'s judgings ("cpu" when it cannot be judged here at all)."""
    return judging_route(problem).queue or "cpu"


# Background judgings (rejudges, package checks) of a problem that can run on a GPU go to this
# queue while a GPU worker is alive, so a GPU timing is never re-timed on a CPU in Triton's
# interpreter. Only GPU workers consume it (compose: gpu-worker, WORKER_QUEUES gpu,gpu-rejudge).
_GPU_SEEN: dict[str, float] = {}
GPU_SEEN_TTL_S = 10.0


def gpu_workers_present() -> bool:
    """Whether a worker that holds a GPU is here: JUDGE_GPU_ENABLED, or a live heartbeat
    (judge_site/worker/heartbeat.py) naming the ``gpu`` queue or JUDGE_GPU_REJUDGE_QUEUE. The Redis look
    is cached for GPU_SEEN_TTL_S; Redis away counts as no GPU worker seen."""
    if settings.JUDGE_GPU_ENABLED:
        return True
    import time

    now = time.monotonic()
    if now - _GPU_SEEN.get("at", -1e9) < GPU_SEEN_TTL_S:
        return bool(_GPU_SEEN["present"])
    present = False
    try:
        present = any(gpu_queue_served(beat.get("queues", [])) for beat in _live_beats())
    except Exception:  # noqa: BLE001  (Redis away: background work stays on the CPU queue)
        present = False
    _GPU_SEEN.update(at=now, present=float(present))
    return present


def gpu_queue_served(queues: list[str]) -> bool:
    return bool({"gpu", settings.JUDGE_GPU_REJUDGE_QUEUE} & {str(q) for q in queues})


def _live_beats() -> list[dict[str, Any]]:
    import json

    from judge_site.worker import heartbeat

    client = heartbeat.redis_client()
    beats = []
    for key in client.scan_iter(match=heartbeat.HEARTBEAT_PREFIX + "*", count=200):
        raw = client.get(key)
        if raw:
            beats.append(json.loads(raw))
    return beats


def judged_on_gpu(environment: dict[str, object] | None) -> bool:
    """Whether a stored result was timed on a GPU (its hello's device: "cuda: <name>")."""
    return str((environment or {}).get("device", "")).startswith("cuda")


def background_queue(device: str, default: str, on_gpu_before: bool = False) -> str:
    """The queue of a rejudge or package check of a problem of ``device``: the GPU workers'
    JUDGE_GPU_REJUDGE_QUEUE for a GPU problem (or a submission judged on a GPU before) while
    a GPU worker is alive, else ``default`` (the CPU workers' rejudge or check queue)."""
    wants_gpu = device == Device.GPU or on_gpu_before
    if wants_gpu and gpu_workers_present():
        return str(settings.JUDGE_GPU_REJUDGE_QUEUE)
    return default


def check_queue(device: str) -> str:
    """A package check of a problem that can run on a GPU (device not "cpu") runs on a GPU
    worker when one is alive: its solutions are timed as students' will be."""
    if device != Device.CPU and gpu_workers_present():
        return str(settings.JUDGE_GPU_REJUDGE_QUEUE)
    return str(settings.JUDGE_CHECK_QUEUE)

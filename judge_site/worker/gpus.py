"""The GPUs of a worker host, and which one each judging process holds.

A GPU worker runs one judging process per GPU (docker/entrypoint.sh sizes its concurrency by
``manage.py gpus --count``), and process ``i`` holds GPU ``i`` for every judging it runs, so two
timed judgings never share a device (the docker backend's per-GPU lock makes that hold even
where two processes are configured for one GPU). The GPUs are JUDGE_GPU_IDS where set, else what
``nvidia-smi -L`` lists (by UUID, which stays the same whatever CUDA_VISIBLE_DEVICES says). A
worker asked to consume the ``gpu`` queue with no GPU found refuses to start: a GPU problem must
never be judged on the CPU without anyone noticing.

Tested without a GPU by faking ``nvidia-smi`` at its boundary (``run``)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

GPU_QUEUE = "gpu"
# "GPU 0: NVIDIA H200 (UUID: GPU-5c2a...)" (nvidia-smi -L); MIG devices are indented lines.
_LINE = re.compile(r"^GPU (\d+): (.+?) \(UUID: (GPU-[0-9A-Za-z-]+)\)\s*$")
_held: str | None = None


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    uuid: str


def parse_nvidia_smi(text: str) -> list[Gpu]:
    """The GPUs of ``nvidia-smi -L``'s output (other lines ignored)."""
    found = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            found.append(Gpu(int(match[1]), match[2], match[3]))
    return found


def discover(
    configured: Sequence[str] | None = None, run: Callable[..., Any] | None = None
) -> list[str]:
    """The GPU ids this host's sandboxes may be given: JUDGE_GPU_IDS where set, else the UUIDs
    ``nvidia-smi -L`` lists; [] where there is neither (no driver, no tool, an error)."""
    ids = list(settings.JUDGE_GPU_IDS if configured is None else configured)
    if ids:
        return [str(i) for i in ids]
    run = run or subprocess.run  # looked up when called (tests replace it)
    try:
        done = run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return [gpu.uuid for gpu in parse_nvidia_smi(done.stdout or "")]


def consumes_gpu_queue(queues: Any) -> bool:
    """Whether a worker's ``--queues`` option (a comma-separated string or a list) names gpu."""
    if isinstance(queues, str):
        queues = queues.split(",")
    return GPU_QUEUE in {str(q).strip() for q in queues or []}


def require_for_queues(queues: Any, run: Callable[..., Any] | None = None) -> list[str]:
    """At a worker's start: the GPUs, or ImproperlyConfigured where the gpu queue is asked for
    and none is found."""
    if not consumes_gpu_queue(queues):
        return []
    ids = discover(run=run)
    if not ids:
        raise ImproperlyConfigured(
            "this worker consumes the gpu queue but no GPU was found: nvidia-smi -L lists none "
            "(install the NVIDIA driver and container toolkit) and JUDGE_GPU_IDS is empty; "
            "set JUDGE_GPU_IDS, or start the worker without the gpu queue"
        )
    return ids


def hold(process_index: int, run: Callable[..., Any] | None = None) -> str | None:
    """Worker process ``process_index`` takes its GPU (the index modulo the GPUs found);
    None on a host without GPUs. Called once per judging process at its start."""
    global _held
    ids = discover(run=run)
    _held = ids[process_index % len(ids)] if ids else None
    return _held


def held() -> str | None:
    """The GPU this process holds (hold), else the host's first as discovered (a one-shot
    command such as ``manage.py judge``, which is no worker process)."""
    if _held is not None:
        return _held
    ids = discover()
    return ids[0] if ids else None

"""Where a problem's judgings go on this site: the Celery queue of the workers that can judge it
now, or a refusal with its reason (shown on the problem page before the student submits)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from judge_site.catalog.models import Device, Problem


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
    requires = [str(r) for r in (problem.manifest or {}).get("requires", [])]
    mapped = {entry.partition("=")[0].strip() for entry in settings.JUDGE_SANDBOX_IMAGES}
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

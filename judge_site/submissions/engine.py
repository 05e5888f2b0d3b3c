"""The site's door to the judging engine: the configured backend and one call to judge.

The Celery task (services.submission_judge) and ``manage.py judge`` both come through here, so
the backend policy lives in one place: the local backend runs untrusted code without any
isolation and is refused when DEBUG is off unless JUDGE_ALLOW_LOCAL_BACKEND is set.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from sandbox.backends.base import Backend, get_backend
from sandbox.contracts import JudgeResult, Mode, TestResult
from sandbox.problem import ProblemPackage


def backend_from_settings(gpu: bool = False) -> Backend:
    """The backend named by settings.JUDGE_BACKEND, built from the JUDGE_* settings.

    ``gpu``: the caller will ask for a GPU (a docker backend then gets JUDGE_GPU_IDS)."""
    name = settings.JUDGE_BACKEND
    if name == "local":
        if not settings.DEBUG and not getattr(settings, "JUDGE_ALLOW_LOCAL_BACKEND", False):
            raise ImproperlyConfigured(
                "JUDGE_BACKEND=local is not a security boundary and is refused when DEBUG is off; "
                "use docker, or set JUDGE_ALLOW_LOCAL_BACKEND=true knowingly"
            )
        return get_backend("local")
    if name == "docker":
        options: dict[str, object] = {"image": settings.JUDGE_SANDBOX_IMAGE}
        gpu_image = getattr(settings, "JUDGE_SANDBOX_GPU_IMAGE", "")
        if gpu_image:
            options["gpu_image"] = gpu_image
        if gpu:
            options["gpu_ids"] = list(settings.JUDGE_GPU_IDS)
        return get_backend("docker", **options)
    return get_backend(name)


def gpu_for(package: ProblemPackage) -> str | None:
    """The GPU this worker gives a judging: its first JUDGE_GPU_IDS entry, for GPU problems
    (one GPU worker process per GPU, so never two timed judgings on one GPU)."""
    ids = list(settings.JUDGE_GPU_IDS)
    if package.device == "gpu" and ids:
        return str(ids[0])
    return None


def judge_source(
    package: ProblemPackage,
    source: str,
    mode: Mode | str,
    on_progress: Callable[[TestResult], None] | None = None,
) -> JudgeResult:
    """Judge ``source`` synchronously through the configured backend."""
    from sandbox.grader import judge  # imports torch: only when a judging really happens

    gpu_id = gpu_for(package)
    backend = backend_from_settings(gpu=gpu_id is not None)
    return judge(
        package,
        source,
        mode=Mode(mode),
        backend=backend,
        on_progress=on_progress,
        gpu_id=gpu_id,
        labels={"tensor-judge.problem": str(package.number)},
    )

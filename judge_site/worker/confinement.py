"""This worker's confined graders: where authors' code runs (sandbox/host/confined.py).

With the docker backend, a package's ``tests.py``, its reference and a practice folder's
``test.py`` run in a container of the worker's own image started without network, Docker
socket, credentials or environment (the launcher in this process holds those and never
executes package code). One grader process per trust domain: the built-in catalog (the
repository's problems/) shares one; every uploaded or imported version has its own.
"""

from __future__ import annotations

import atexit
import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings

from sandbox.grader.contracts import JudgeResult
from sandbox.grader.package import ProblemPackage
from sandbox.host.backends.base import Backend, Sandbox, SandboxSpec, get_backend
from sandbox.host.confined import GRADER_COMMAND, ConfinedGraders
from sandbox.host.relay_service import CATALOG_DOMAIN

log = logging.getLogger(__name__)

GRADER_LABEL = "tensor-judge.role"

_graders: dict[str, ConfinedGraders] = {}
_lock = threading.Lock()
# The worker image a host command found in the local Docker engine (host_command_confinement):
# its confined grader runs there, as a worker's does in its own image.
_host_image: str | None = None
# The images a host command looks for (scripts/build_images and scripts/up build and tag them).
HOST_WORKER_IMAGES = ("tensor-judge-worker:offline", "tensor-judge-worker:latest")


def confined(backend_name: str) -> bool:
    """Whether judgings with this backend run authors' code in a confined grader process."""
    setting = str(getattr(settings, "JUDGE_CONFINE_AUTHORS", "auto"))
    if setting == "auto":
        return backend_name == "docker"
    return setting == "always"


def domain_of(package: ProblemPackage) -> str:
    """The trust domain a package's code runs in: the built-in catalog, or its own version."""
    catalog = Path(settings.JUDGE_PROBLEMS_DIR).resolve()
    if catalog in package.path.resolve().parents:
        return CATALOG_DOMAIN
    return f"version:{package.version}"


def grader_image() -> str | None:
    """JUDGE_GRADER_IMAGE, else the image of the container this process runs in, else None
    (a command on a host, e.g. a maintainer's ``manage.py judge``: see ``graders``)."""
    image = str(getattr(settings, "JUDGE_GRADER_IMAGE", "") or "")
    if image:
        return image
    if _host_image is not None:
        return _host_image
    if not Path("/.dockerenv").exists():
        return None
    import docker

    try:
        own = docker.from_env().containers.get(socket.gethostname())
        return str(own.image.id) if own.image is not None else None
    except Exception as exc:  # noqa: BLE001 - not a container of this engine (a VM's own)
        log.info("no container of this engine is %s (%s): no grader image",
                 socket.gethostname(), type(exc).__name__)
        return None


def _spec(labels: dict[str, str]) -> SandboxSpec:
    age = float(settings.JUDGE_ORPHAN_AGE_S)
    return SandboxSpec(
        memory_mib=int(getattr(settings, "JUDGE_GRADER_MEMORY_MIB", 4096)),
        pids=256,
        tmpfs_mib=512,
        output_kib=1024,
        max_frame_mib=512,
        wall_time_s=age,  # never older than an orphan: the sweep would take it
        labels=labels,
    )


_worker_labels: dict[str, str] = {}  # the worker's name (JudgeEngine.worker_name), on every grader


def label_graders(labels: dict[str, str]) -> None:
    """The labels every grader this process starts carries by default (the worker's name), so
    that the worker's shutdown and its next start find the graders of its package checks too."""
    _worker_labels.clear()
    _worker_labels.update(labels)


def graders(
    backend_name: str, labels: dict[str, str] | None = None, cpuset: str | None = None
) -> ConfinedGraders:
    """This process's graders for a backend ("docker": containers; "local": subprocesses
    with an empty environment, for development and the suite). ``cpuset``: the worker
    process's CPU set, where its grader's work stayed when it ran in the worker (one CPU's
    quota and one thread: its reference runs and relaying never press on the other
    processes' timed CPUs)."""
    with _lock:
        found = _graders.get(backend_name)
        if found is not None:
            return found
        spec = _spec({**_worker_labels, **(labels or {}), GRADER_LABEL: "grader"})
        image = grader_image() if backend_name == "docker" else None
        if image is not None:
            runner = get_backend(
                "docker", image=image, command=["python3", *GRADER_COMMAND],
                entrypoint=[], cpus=1.0, cpuset=cpuset, cgroup_root=None,
            )
        else:
            # Outside a container (development, a maintainer's command on the host): a
            # subprocess with an empty environment; a worker host must run in a container or
            # set JUDGE_GRADER_IMAGE (README, "Security"): this process's user holds the keys.
            if backend_name == "docker":
                log.warning("no grader image (JUDGE_GRADER_IMAGE): authors' code runs in a "
                            "subprocess of this host process, not confined by Docker")
            runner = get_backend("local", command=GRADER_COMMAND)

        def start() -> Sandbox:
            return runner.start(spec)

        # Retired well before the orphan sweep could take one mid-judging.
        found = ConfinedGraders(start, max_age_s=max(60.0, spec.wall_time_s / 3))
        if not _graders:
            # A one-shot command (manage.py judge, check_problems, import_practice on a host)
            # never runs a worker's shutdown: its graders went on running after it exited,
            # waiting on a channel nobody held, until some worker's orphan sweep (stop 46 found
            # one left by each host judge). A worker closes them at its shutdown too.
            atexit.register(close_graders)
        _graders[backend_name] = found
        return found


def close_graders() -> None:
    """Stop this process's grader processes (worker shutdown, tests, a command's exit)."""
    with _lock:
        found = list(_graders.values())
        _graders.clear()
    atexit.unregister(close_graders)
    for item in found:
        item.close()


def check_package(package: ProblemPackage, backend: Backend, **options: Any) -> Any:
    """sandbox.grader.check.check_package, in a confined grader process where judgings are confined
    (the package check runs the same authors' code as a judging)."""
    from sandbox.grader.check import check_package as check_here

    if not confined(backend.name):
        return check_here(package, backend, **options)
    requires = list(package.requires)
    route = getattr(backend, "for_requirements", None)
    if requires and callable(route):
        backend = route(requires)  # the image for these requirements, as check_package does
    return graders(backend.name).check(package, backend, domain=domain_of(package), **options)


def judge_function(backend: Backend) -> Callable[..., JudgeResult]:
    """``sandbox.grader.entry.judge``'s contract, run where authors' code runs for this backend (the
    practice import's check judges a folder's own solution and starter this way)."""
    if not confined(backend.name):
        from sandbox.grader.entry import judge

        return judge

    def confined_judge(package: ProblemPackage, source: str, **options: Any) -> JudgeResult:
        return graders(backend.name).judge(package, source, domain=domain_of(package), **options)

    return confined_judge

"""The judging engine: one ``JudgeEngine`` object per process, reached through ``judge_engine()``.

Everything that judges comes through it: the Celery task (submissions/services.py), ``manage.py
judge``, ``check_problems``, the book import, the package checks of uploads and rejudges. It
holds what a process judges with: the configured backend and its policy (backends.py), the warm
pools by image, the worker's CPU set and name (labels on its sandboxes), the clock of the orphan
sweep; and it judges (``judge``) and finds a judging's package (``package``: this host's folder or
the worker host's cache, package_cache.py). A Celery worker names the engine at its start
(``worker_name``), and each judging process pins it to a CPU set and keeps a warm pool
(``pin``, ``enable_pool``; submissions/tasks.py); a one-shot command uses it as built.

Where the time goes and quiet timings: every judging runs through ``sandbox.host.phases.TimedBackend``,
which records a per-phase breakdown (``environment["phases"]``) and, before the benchmark's
first timed request, waits for this process's CPU set to be quiet (quiet.py); ``environment``
then says on which CPUs the timing ran, how long it waited, and whether it was contended.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings

from judge_site.worker import confinement, gpus, package_cache
from judge_site.worker.backends import ImageRoutingBackend, local_backend
from judge_site.worker.images import SandboxImageError, image_for
from judge_site.worker.quiet import QuietCpus
from sandbox.grader.contracts import JudgeResult, Mode, TestResult, Verdict, contended
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend
from sandbox.host.backends.cpu_sets import available_cpus, cpuset_for_process, parse_cpu_list
from sandbox.host.phases import TimedBackend, wait_for_closes

log = logging.getLogger(__name__)

# Every sandbox a worker starts carries its Celery node name ("cpu@host") as this label, so that
# the same worker, restarted after dying mid-judging, removes at once what its previous run left
# (JudgeEngine.remove_own_sandboxes).
WORKER_LABEL = "tensor-judge.worker"
# Orphaned sandboxes are looked for at most this often per process (and at a worker's start).
ORPHAN_SWEEP_EVERY_S = 60.0


class JudgeEngine:
    """What one process judges with (see the module's docstring).

    ``worker_name``: the Celery node name ("" outside a worker). ``cpuset``: this process's CPU
    set (``pin``), given to every sandbox it starts. ``pool_size``: pre-started CPU sandboxes
    kept warm per image (``enable_pool``: worker processes only; a one-shot command would leave
    its pool's containers behind); a worker process also removes a sandbox whose runner said
    goodbye after the verdict in the background, a one-shot command before returning."""

    def __init__(self, worker_name: str = "", cpuset: str | None = None) -> None:
        self._worker_name = ""
        self.worker_name = worker_name
        self.cpuset = cpuset
        self.pool_size = 0
        self.close_in_background = False
        self._pooled: dict[str, Backend] = {}
        self._pool_lock = threading.Lock()
        self._last_sweep = float("-inf")
        self._sweep_lock = threading.Lock()

    @property
    def worker_name(self) -> str:
        return self._worker_name

    @worker_name.setter
    def worker_name(self, name: str) -> None:
        """The worker's node name, on every sandbox and grader it starts (package checks too)."""
        self._worker_name = name
        if name:
            confinement.label_graders(self.labels)

    @property
    def labels(self) -> dict[str, str]:
        """The labels every sandbox and grader of this engine carries."""
        return {WORKER_LABEL: self.worker_name} if self.worker_name else {}

    def backend(
        self, gpu: bool = False, requires: Sequence[str] | None = None, name: str | None = None
    ) -> Backend:
        """The backend named by ``name`` or else settings.JUDGE_BACKEND, built from the JUDGE_*
        settings ("local" from settings refused when DEBUG is off: backends.local_backend).

        ``gpu``: the caller will ask for a GPU (a docker backend then gets the one this process
        holds, gpus.held). ``requires``: the problem's requirements, which choose a docker
        backend's image (``image_for``; SandboxImageError when none fits). ``None``: not for one
        problem: a docker backend then routes per package (``ImageRoutingBackend``, for the
        package check)."""
        explicit = name is not None  # a maintainer's command-line choice is the explicit consent
        name = name or settings.JUDGE_BACKEND
        if name == "local":
            return local_backend(explicit)
        if name != "docker":
            return get_backend(name)
        options: dict[str, object] = {"cgroup_root": settings.JUDGE_CGROUP_ROOT}
        if self.cpuset is not None:
            options["cpuset"] = self.cpuset
        gpu_image = getattr(settings, "JUDGE_SANDBOX_GPU_IMAGE", "")
        if gpu_image:
            options["gpu_image"] = gpu_image
        if gpu:
            held = gpus.held()
            options["gpu_ids"] = [held] if held else []
        if requires is None:
            return ImageRoutingBackend(options)
        image = image_for(requires)
        if self.pool_size > 0 and not gpu:
            with self._pool_lock:
                if image not in self._pooled:
                    self._pooled[image] = get_backend(
                        "docker", **{**options, "image": image, "pool_size": self.pool_size}
                    )
                return self._pooled[image]
        return get_backend("docker", **{**options, "image": image})

    def enable_pool(self, size: int) -> None:
        """Keep ``size`` pre-started CPU sandboxes per image warm from now on (a worker process)."""
        self.pool_size = max(0, int(size))
        self.close_in_background = True

    def pin(self, index: int) -> str | None:
        """Give worker process ``index`` its CPU set (settings.JUDGE_SANDBOX_CPUSETS: "auto", a
        ";"-separated list, or "" for none): every sandbox it starts runs there, and so does the
        process itself (its grader's own work stays off the other processes' timed CPUs).
        Returns the set, or None when pinning is off."""
        setting = str(getattr(settings, "JUDGE_SANDBOX_CPUSETS", ""))
        self.cpuset = cpuset = cpuset_for_process(index, setting, available_cpus())
        if cpuset is not None:
            try:
                cpus = parse_cpu_list(cpuset)
                os.sched_setaffinity(0, cpus)
                # The grader's own torch (reference runs, comparisons) gets as many threads as
                # the set has CPUs: a thread pool sized before pinning spun on a CPU it no longer
                # had (re-verification 10x slower). Set before torch is first imported here.
                os.environ.setdefault("OMP_NUM_THREADS", str(len(cpus)))
            except (AttributeError, OSError, ValueError) as exc:  # a set outside this container
                log.warning("worker process %d: cannot pin itself to CPUs %s: %s", index, cpuset, exc)
        log.info("worker process %d: sandboxes on CPUs %s", index, cpuset or "any")
        return cpuset

    def close(self) -> None:
        """Destroy the idle pooled sandboxes and stop pooling (after the sandboxes of finished
        judgings still being removed in the background are gone); the confined grader
        processes go with them."""
        with self._pool_lock:
            backends, self.pool_size = list(self._pooled.values()), 0
            self._pooled.clear()
            self.close_in_background = False
        wait_for_closes()
        for backend in backends:
            backend.close()
        confinement.close_graders()

    def remove_own_sandboxes(self) -> int:
        """At a worker's start, before its first judging: remove every sandbox labelled with this
        worker's name, which only a previous run of the same worker (killed mid-judging) can
        have left. Returns how many were removed."""
        if settings.JUDGE_BACKEND != "docker" or not self.worker_name:
            return 0
        try:
            import docker

            from sandbox.host.backends.docker import LABEL

            client = docker.from_env()
            filters: dict[str, Any] = {"label": [LABEL, f"{WORKER_LABEL}={self.worker_name}"]}
            removed = 0
            # sparse: no inspect per container, which fails for one removed meanwhile
            for container in client.containers.list(all=True, sparse=True, filters=filters):
                container.remove(force=True)
                removed += 1
        except Exception as exc:  # the engine may be down; the age-based sweep remains
            log.warning("removing this worker's old sandboxes failed: %s: %s", type(exc).__name__, exc)
            return 0
        if removed:
            log.warning("removed %d sandbox(es) a previous run of this worker left", removed)
        return removed

    def reap_orphans(self, backend: Backend | None = None, force: bool = False) -> int:
        """Remove sandboxes older than any live one can be (JUDGE_ORPHAN_AGE_S, by default the
        task's hard time limit plus the warm pool's idle time plus a minute, since a sandbox's
        age counts from its start, ahead of its judging): a worker that died mid-judging (killed
        at the hard limit, out of memory, its machine restarted) left them running. Every worker
        sweeps its own Docker engine when it starts and then at most once a minute, before a
        judging; a failed sweep is logged and never stops a judging. Returns how many were
        removed."""
        with self._sweep_lock:
            now = time.monotonic()
            if not force and now - self._last_sweep < ORPHAN_SWEEP_EVERY_S:
                return 0
            self._last_sweep = now
        try:
            backend = backend or self.backend()
            removed = backend.reap(float(settings.JUDGE_ORPHAN_AGE_S))
        except Exception as exc:  # the engine may be down; the judging will say so itself
            log.warning("sweeping orphaned sandboxes failed: %s: %s", type(exc).__name__, exc)
            return 0
        if removed:
            log.warning("removed %d orphaned sandbox(es) of a worker that died mid-judging", removed)
        return removed

    def package(
        self, package_dir: str, version: str, load: Callable[[str], Any] = load_package
    ) -> Any:
        """The package a judging uses: from this host's own folder (``load``: how it is read), or,
        on a worker host with JUDGE_PACKAGE_SOURCE, exactly content hash ``version`` from its
        cache or the main host (package_cache.PackageFetchError, naming the version and source,
        if not)."""
        config = package_cache.config_from_settings()
        if config is None:
            return load(package_dir)
        return package_cache.package_for(config, package_dir, version)

    def judge(
        self,
        package: ProblemPackage,
        source: str,
        mode: Mode | str,
        on_progress: Callable[[TestResult], None] | None = None,
        secret_seed: int | None = None,
        script: str = "",
    ) -> JudgeResult:
        """Judge ``source`` synchronously through the configured backend: the complete result
        (hidden details, the secret seed; drawn here unless given, so that even an IE result
        carries it). ``secret_seed`` reproduces a judging's hidden inputs (staff only).
        ``script``: a scratch run's script (mode scratch only)."""
        from sandbox.grader.entry import judge  # imports torch: only when a judging really happens

        if secret_seed is None:
            secret_seed = secrets.randbits(63)
        gpu_id = gpu_for(package)
        try:
            backend = self.backend(gpu=gpu_id is not None, requires=package.requires)
        except SandboxImageError as exc:
            return _internal_error(package, f"sandbox configuration: {exc}")
        self.reap_orphans(backend)
        if backend.name == "local" and package.requires:
            from sandbox.grader.check import missing_requirements

            missing = missing_requirements(package)
            if missing:
                return _internal_error(
                    package,
                    f"this worker judges with the local backend, whose Python cannot import "
                    f"{', '.join(missing)} (problem.toml requires it): use JUDGE_BACKEND=docker "
                    "with the image JUDGE_SANDBOX_IMAGES maps it to",
                )
        quiet = QuietCpus(backend, gpu=gpu_id is not None)
        # Here: sandbox.bench imports torch, and the web image (beat, which imports this module
        # with the tasks) has none.
        from sandbox.bench.gpu_quiet import GpuQuiet

        gpu_quiet = GpuQuiet(gpu_id)  # the GPU read through NVML before its timing, and recorded
        pool = getattr(backend, "pool", None)
        if Mode(mode) != Mode.SUBMIT or package.benchmark is None:
            pool = None  # only a judging with a timed phase holds the refills
        if pool is not None:
            pool.hold()  # no refill of the sandbox this judging takes until its timing is over
        timed = TimedBackend(
            backend,
            before_timing=gpu_quiet.following(quiet.before),
            after_timing=quiet.after,
            close_in_background=self.close_in_background,
        )
        quiet.boxes = lambda: list(timed.boxes)  # the timing's pressure is theirs where known
        labels = {"tensor-judge.problem": str(package.number)} | self.labels
        try:
            if confinement.confined(backend.name):
                graders = confinement.graders(backend.name, self.labels, self.cpuset)
                result = graders.judge(
                    package, source, mode=Mode(mode), backend=timed, on_progress=on_progress,
                    gpu_id=gpu_id, labels=labels, domain=confinement.domain_of(package),
                    secret_seed=secret_seed, job_s=float(settings.CELERY_TASK_SOFT_TIME_LIMIT),
                    script=script,
                )
            else:
                result = judge(
                    package, source, mode=Mode(mode), backend=timed, on_progress=on_progress,
                    gpu_id=gpu_id, labels=labels, secret_seed=secret_seed, script=script,
                )
        finally:
            timed.finish()
            if pool is not None:
                pool.resume()
        timed.clock.cut(timed.clock.phase)
        result.environment["phases"] = timed.clock.as_dict()
        result.environment["host"] = host_name()
        if quiet.info:
            result.environment.update(quiet.info)
        gpu_quiet.mark(result.environment)
        # Times taken while the timed sandboxes waited for a CPU (or the GPU was busy or slowed)
        # beyond the quiet rules' bounds are shown and said to be contended, never "verified".
        busy = list(quiet.busy)
        busy += gpu_quiet.found.contended if gpu_quiet.found is not None else []
        if busy and result.benchmark is not None:
            result = dataclasses.replace(result, benchmark=contended(result.benchmark, "; ".join(busy)))
        return result


_engine: JudgeEngine | None = None
_engine_lock = threading.Lock()


def judge_engine() -> JudgeEngine:
    """This process's engine, built at its first use (a worker's at its start, a command's at
    its first judging or check). A forked judging process inherits its worker's (the name) and
    makes it its own (``pin``, ``enable_pool``)."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = JudgeEngine()
        return _engine


def host_name() -> str:
    """The machine that judged: JUDGE_HOST_NAME where set (a worker host's name as its
    self-hoster knows it), else this machine's host name (a container's id in compose)."""
    return str(getattr(settings, "JUDGE_HOST_NAME", "") or socket.gethostname())[:200]


def gpu_for(package: ProblemPackage) -> str | None:
    """The GPU this worker process gives a judging of a GPU problem: the one it holds
    (gpus.hold: one judging process per GPU, so never two timed judgings on one GPU)."""
    return gpus.held() if package.device == "gpu" else None


def _internal_error(package: ProblemPackage, message: str) -> JudgeResult:
    """A judging that could not start for a reason of this worker's configuration (IE)."""
    return JudgeResult(
        verdict=Verdict.IE,
        tests=[],
        benchmark=None,
        environment={"backend": str(settings.JUDGE_BACKEND)},
        message=message,
        problem_version=package.version,
    )

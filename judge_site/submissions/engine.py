"""The site's door to the judging engine: the configured backend and one call to judge.

The Celery task (services.submission_judge) and ``manage.py judge`` both come through here, so
the backend policy lives in one place: the local backend runs untrusted code without any
isolation and is refused when DEBUG is off unless JUDGE_ALLOW_LOCAL_BACKEND is set.

Sandbox images (docker): a problem whose problem.toml says ``requires = ["triton"]`` is judged in
the image JUDGE_SANDBOX_IMAGES maps its requirements to ("triton=tensor-judge-sandbox:triton");
every other problem in JUDGE_SANDBOX_IMAGE. A requirement without a mapping, or requirements
mapped to different images, is a configuration error: the judging ends IE with that message.
GPU judgings use the docker backend's GPU image, which must carry every GPU problem's requirements.

Where the time goes and quiet timings: every judging runs through ``sandbox.host.phases.TimedBackend``,
which records a per-phase breakdown (``environment["phases"]``) and, before the benchmark's
first timed request, waits for this worker process's CPU set to be quiet (its warm pool paused,
the host-wide lock of the set taken: sandbox/host/backends/cpu_sets.py); ``environment`` then says
on which CPUs the timing ran, how long it waited, and whether it was contended.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from judge_site.submissions import confinement, gpus
from judge_site.submissions.images import SandboxImageError, image_for
from sandbox.grader.contracts import JudgeResult, Mode, TestResult, Verdict, contended
from sandbox.grader.package import ProblemPackage
from sandbox.host.backends.base import Backend, Sandbox, SandboxSpec, get_backend
from sandbox.host.backends.cpu_sets import (
    CONTENDED_CPU_PRESSURE,
    PressureMeter,
    TimingLock,
    available_cpus,
    cpuset_for_process,
)
from sandbox.host.phases import TimedBackend, wait_for_closes

log = logging.getLogger(__name__)

# Warm pools of the long-lived docker backends of this process, by image (worker processes
# only: enable_pool() at a Celery worker process's start, close_pools() at its end).
_pool_size = 0
_pooled: dict[str, Backend] = {}
_pool_lock = threading.Lock()
# This worker process's CPU set (pin_worker_process), given to every sandbox it starts.
_cpuset: str | None = None
# A worker process removes a sandbox whose runner said goodbye after the verdict, in the
# background (enable_pool); a one-shot command removes it before returning.
_close_in_background = False
# Before a benchmark: how long to wait for the warm pool's sandboxes still importing torch on
# this CPU set, and for another timed judging holding the set (more processes than sets).
QUIET_WAIT_S = 10.0
TIMING_LOCK_WAIT_S = 120.0

# This worker's Celery node name ("cpu@host"), set when the worker starts: every sandbox it
# starts carries it as the label WORKER_LABEL, so that the same worker, restarted after dying
# mid-judging, removes at once what its previous run left (remove_own_sandboxes).
WORKER_LABEL = "tensor-judge.worker"
_worker_name = ""

# Orphaned sandboxes are looked for at most this often per worker process (and at its start).
ORPHAN_SWEEP_EVERY_S = 60.0
_last_sweep = float("-inf")
_sweep_lock = threading.Lock()


def requires_of(package: ProblemPackage) -> list[str]:
    """problem.toml's optional ``requires`` (modules the sandbox must provide)."""
    return [str(r) for r in package.manifest.get("requires", [])]


class ImageRoutingBackend(Backend):
    """The docker backend of JUDGE_SANDBOX_IMAGE, which also hands out, through
    ``for_requirements``, docker backends of the image a package's ``requires`` need (the package
    check, sandbox/grader/check.py, asks it for each package)."""

    name = "docker"

    def __init__(self, options: dict[str, object]) -> None:
        self._options = options
        self._by_image: dict[str, Backend] = {}
        self.default = self._backend(str(settings.JUDGE_SANDBOX_IMAGE))

    def _backend(self, image: str) -> Backend:
        if image not in self._by_image:
            self._by_image[image] = get_backend("docker", **{**self._options, "image": image})
        return self._by_image[image]

    def for_requirements(self, requires: Sequence[str]) -> Backend:
        return self._backend(image_for(requires))

    def start(self, spec: SandboxSpec) -> Sandbox:
        return self.default.start(spec)

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        return self.default.start_trusted(spec)

    def reap(self, older_than_s: float) -> int:
        return self.default.reap(older_than_s)


def backend_from_settings(
    gpu: bool = False, requires: Sequence[str] | None = None, name: str | None = None
) -> Backend:
    """The backend named by ``name`` or else settings.JUDGE_BACKEND, built from the JUDGE_*
    settings. "local" from settings is refused when DEBUG is off (unless
    JUDGE_ALLOW_LOCAL_BACKEND); a ``name`` given on a maintainer's command line is consent.

    ``gpu``: the caller will ask for a GPU (a docker backend then gets the one this process
    holds, gpus.held).
    ``requires``: the problem's requirements, which choose a docker backend's image (see
    ``image_for``; SandboxImageError when none fits). ``None``: not for one problem: a docker
    backend then routes per package (``ImageRoutingBackend``, for the package check)."""
    explicit = name is not None  # a maintainer's command-line choice is the explicit consent
    name = name or settings.JUDGE_BACKEND
    if name == "local":
        if not explicit and not settings.DEBUG and not getattr(settings, "JUDGE_ALLOW_LOCAL_BACKEND", False):
            raise ImproperlyConfigured(
                "JUDGE_BACKEND=local is not a security boundary and is refused when DEBUG is off; "
                "use docker, or set JUDGE_ALLOW_LOCAL_BACKEND=true knowingly"
            )
        return get_backend("local")
    if name == "docker":
        options: dict[str, object] = {"cgroup_root": settings.JUDGE_CGROUP_ROOT}
        if _cpuset is not None:
            options["cpuset"] = _cpuset
        gpu_image = getattr(settings, "JUDGE_SANDBOX_GPU_IMAGE", "")
        if gpu_image:
            options["gpu_image"] = gpu_image
        if gpu:
            held = gpus.held()
            options["gpu_ids"] = [held] if held else []
        if requires is None:
            return ImageRoutingBackend(options)
        image = image_for(requires)
        if _pool_size > 0 and not gpu:
            return _pooled_backend(image, options)
        return get_backend("docker", **{**options, "image": image})
    return get_backend(name)


def enable_pool(size: int) -> None:
    """Keep ``size`` pre-started CPU sandboxes per image warm in this process from now on (a
    Celery worker process; a one-shot command would leave its pool's containers behind)."""
    global _pool_size, _close_in_background
    _pool_size = max(0, int(size))
    _close_in_background = True


def pin_worker_process(index: int) -> str | None:
    """Give worker process ``index`` its CPU set (settings.JUDGE_SANDBOX_CPUSETS: "auto", a
    ";"-separated list, or "" for none): every sandbox it starts runs there, and so does the
    process itself (its grader's own work stays off the other processes' timed CPUs).
    Returns the set, or None when pinning is off."""
    global _cpuset
    setting = str(getattr(settings, "JUDGE_SANDBOX_CPUSETS", ""))
    cpuset = cpuset_for_process(index, setting, available_cpus())
    _cpuset = cpuset
    if cpuset is not None:
        from sandbox.host.backends.cpu_sets import parse_cpu_list

        try:
            cpus = parse_cpu_list(cpuset)
            os.sched_setaffinity(0, cpus)
            # The grader's own torch (reference runs, comparisons) gets as many threads as the
            # set has CPUs: a thread pool sized before pinning spun on a CPU it no longer had
            # (re-verification 10x slower). Set before torch is first imported here.
            os.environ.setdefault("OMP_NUM_THREADS", str(len(cpus)))
        except (AttributeError, OSError, ValueError) as exc:  # a set outside this container
            log.warning("worker process %d: cannot pin itself to CPUs %s: %s", index, cpuset, exc)
    log.info("worker process %d: sandboxes on CPUs %s", index, cpuset or "any")
    return cpuset


def close_pools() -> None:
    """Destroy this process's idle pooled sandboxes and stop pooling (after the sandboxes
    of finished judgings still being removed in the background are gone)."""
    global _pool_size, _close_in_background
    with _pool_lock:
        backends, _pool_size = list(_pooled.values()), 0
        _pooled.clear()
        _close_in_background = False
    wait_for_closes()
    for backend in backends:
        backend.close()
    confinement.close_graders()  # this process's confined grader processes go with it


def remove_own_pooled() -> int:
    """At a worker's shutdown (its main process, after the last judging): remove every pooled
    sandbox this host started, in case a worker process died before closing its pool."""
    if settings.JUDGE_BACKEND != "docker" or settings.JUDGE_SANDBOX_POOL_SIZE <= 0:
        return 0
    try:
        import docker

        from sandbox.host.backends.docker_pool import remove_pooled

        return remove_pooled(docker.from_env())
    except Exception as exc:  # the engine may be gone already; the orphan sweep remains
        log.warning("removing pooled sandboxes failed: %s: %s", type(exc).__name__, exc)
        return 0


def set_worker_name(name: str) -> None:
    global _worker_name
    _worker_name = name


def worker_name() -> str:
    """This process's Celery node name ("" outside a worker)."""
    return _worker_name


def remove_own_sandboxes() -> int:
    """At a worker's start, before its first judging: remove every sandbox labelled with this
    worker's name, which only a previous run of the same worker (killed mid-judging) can have
    left. Returns how many were removed."""
    if settings.JUDGE_BACKEND != "docker" or not _worker_name:
        return 0
    try:
        import docker

        from sandbox.host.backends.docker import LABEL

        client = docker.from_env()
        filters: dict[str, Any] = {"label": [LABEL, f"{WORKER_LABEL}={_worker_name}"]}
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


def _pooled_backend(image: str, options: dict[str, object]) -> Backend:
    with _pool_lock:
        if image not in _pooled:
            _pooled[image] = get_backend(
                "docker", **{**options, "image": image, "pool_size": _pool_size}
            )
        return _pooled[image]


def reap_orphans(backend: Backend | None = None, force: bool = False) -> int:
    """Remove sandboxes older than any live one can be (JUDGE_ORPHAN_AGE_S, by default the
    task's hard time limit plus the warm pool's idle time plus a minute, since a sandbox's age
    counts from its start, ahead of its judging): a worker that died mid-judging (killed at the hard
    limit, out of memory, its machine restarted) left them running. Every worker sweeps its
    own Docker engine when it starts and then at most once a minute, before a judging; a
    failed sweep is logged and never stops a judging. Returns how many were removed."""
    global _last_sweep
    with _sweep_lock:
        now = time.monotonic()
        if not force and now - _last_sweep < ORPHAN_SWEEP_EVERY_S:
            return 0
        _last_sweep = now
    try:
        backend = backend or backend_from_settings()
        removed = backend.reap(float(settings.JUDGE_ORPHAN_AGE_S))
    except Exception as exc:  # the engine may be down; the judging will say so itself
        log.warning("sweeping orphaned sandboxes failed: %s: %s", type(exc).__name__, exc)
        return 0
    if removed:
        log.warning("removed %d orphaned sandbox(es) of a worker that died mid-judging", removed)
    return removed


def host_name() -> str:
    """The machine that judged: JUDGE_HOST_NAME where set (a worker host's name as its
    self-hoster knows it), else this machine's host name (a container's id in compose)."""
    return str(getattr(settings, "JUDGE_HOST_NAME", "") or socket.gethostname())[:200]


def gpu_for(package: ProblemPackage) -> str | None:
    """The GPU this worker process gives a judging of a GPU problem: the one it holds
    (gpus.hold: one judging process per GPU, so never two timed judgings on one GPU)."""
    return gpus.held() if package.device == "gpu" else None


def judge_source(
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
    requires = requires_of(package)
    try:
        backend = backend_from_settings(gpu=gpu_id is not None, requires=requires)
    except SandboxImageError as exc:
        return _internal_error(package, f"sandbox configuration: {exc}")
    reap_orphans(backend)
    if backend.name == "local" and requires:
        from sandbox.grader.check import missing_requirements

        missing = missing_requirements(package)
        if missing:
            return _internal_error(
                package,
                f"this worker judges with the local backend, whose Python cannot import "
                f"{', '.join(missing)} (problem.toml requires it): use JUDGE_BACKEND=docker "
                "with the image JUDGE_SANDBOX_IMAGES maps it to",
            )
    quiet = _QuietCpus(backend, gpu=gpu_id is not None)
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
        close_in_background=_close_in_background,
    )
    quiet.boxes = lambda: list(timed.boxes)  # the timing's pressure is theirs where known
    labels = {"tensor-judge.problem": str(package.number)} | (
        {WORKER_LABEL: _worker_name} if _worker_name else {}
    )
    try:
        if confinement.confined(backend.name):
            graders = confinement.graders(
                backend.name, {WORKER_LABEL: _worker_name} if _worker_name else {}, _cpuset
            )
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
    busy = [quiet.waited] if quiet.waited else []
    busy += gpu_quiet.found.contended if gpu_quiet.found is not None else []
    if busy and result.benchmark is not None:
        result = dataclasses.replace(result, benchmark=contended(result.benchmark, "; ".join(busy)))
    return result


class _QuietCpus:
    """Before a benchmark: pause this process's warm pool until its sandboxes are done
    importing torch, and take the host-wide lock of the CPU set; afterwards, undo both.
    ``info`` (for the result's environment) says what the timing ran under."""

    psi_path = "/proc/pressure/cpu"  # the host's CPU pressure (PSI)

    def __init__(self, backend: Backend, gpu: bool = False) -> None:
        self.backend = backend
        self.gpu = gpu  # timed on a GPU this judging holds alone (its lock): CPUs matter less
        self.cpuset: str | None = getattr(backend, "cpuset", None)
        self.info: dict[str, str] = {}
        self._contended: list[str] = []
        # Set when the timed sandboxes (or, where unknown, the host's tasks) waited for a CPU
        # beyond CONTENDED_CPU_PRESSURE: the timing is then said to be contended, never verified.
        self.waited = ""
        self._pressure_meter: PressureMeter | None = None
        self.boxes: Callable[[], Sequence[Sandbox]] | None = None  # the judging's sandboxes
        self._lock: TimingLock | None = None
        self._paused = False

    def before(self) -> None:
        start = time.monotonic()
        contended: list[str] = []
        pool = getattr(self.backend, "pool", None)
        if pool is not None:
            self._paused = True
            if not pool.quiet(QUIET_WAIT_S):
                contended.append("a warm sandbox was still starting on these CPUs")
        if self.cpuset is not None:
            lock_dir = str(getattr(settings, "JUDGE_LOCK_DIR", "")) or tempfile.gettempdir()
            self._lock = TimingLock(lock_dir, self.cpuset)
            try:
                got = self._lock.acquire(TIMING_LOCK_WAIT_S)
            except OSError as exc:  # the lock folder is not writable: time anyway, and say so
                got = None
                log.warning("timing lock in %s: %s", lock_dir, exc)
            if got is None:
                self._lock = None
                contended.append(f"no timing lock on CPUs {self.cpuset}")
        elif not self.gpu:
            contended.append("sandboxes not pinned to CPUs of their own")
        waited = time.monotonic() - start
        self._contended = contended
        self._pressure_meter = PressureMeter(self.psi_path, boxes=self.boxes)
        self.info = {
            "timing_cpuset": self.cpuset or "any",
            "timing_waited_s": f"{waited:.3f}",
            "timing_contended": "yes: " + "; ".join(contended) if contended else "no",
        }

    def _pressure(self) -> None:
        """How much the timed sandboxes (where the kernel says; else the host's tasks) waited
        for a CPU during the timing (PSI), and its verdict; the host's figure is kept beside."""
        meter = self._pressure_meter
        pressure = meter.share() if meter is not None else None
        if meter is None or pressure is None:
            return
        self.info["timing_cpu_pressure"] = f"{pressure:.3f}"
        self.info["timing_pressure_of"] = meter.source
        host = meter.host_share()
        if host is not None:
            self.info["timing_host_cpu_pressure"] = f"{host:.3f}"
        if pressure > CONTENDED_CPU_PRESSURE:
            whose = "the timed sandboxes" if meter.source == "sandboxes" else "the host's tasks"
            self.waited = f"{whose} waited for a CPU {100 * pressure:.0f} % of the time"
            self._contended.append(self.waited)
            self.info["timing_contended"] = "yes: " + "; ".join(self._contended)

    def after(self) -> None:
        if self.info:
            self._pressure()
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        pool = getattr(self.backend, "pool", None)
        if self._paused and pool is not None:
            self._paused = False
            pool.resume()


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

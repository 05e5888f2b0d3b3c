"""The production backend: one fresh, hardened Docker container per judging.

The container and its hardening are in docker_sandbox.py, the channel's demultiplexing in
attach.py, the opt-in warm pool in docker_pool.py. This module starts sandboxes (fresh or
pooled), reads the images' recorded environment, and removes what a dead worker left behind.

The host side never imports torch and never parses frames beyond their header."""

from __future__ import annotations

import logging
import tempfile
import time
from typing import Any

import docker
from docker.errors import APIError, DockerException, NotFound

from sandbox.host.backends.base import Backend, Sandbox, SandboxSpec, register
from sandbox.host.backends.cgroup_cpu import DEFAULT_ROOT as CGROUP_ROOT
from sandbox.host.backends.docker_options import LABEL, LABEL_CREATED
from sandbox.host.backends.docker_pool import POOL_MAX_IDLE_S, WarmPool, pool_key
from sandbox.host.backends.docker_sandbox import DockerSandbox
from sandbox.host.backends.kept import TrustedKeeper

log = logging.getLogger(__name__)

IMAGE_INFO_TTL_S = 60.0  # how long a backend trusts the image id it read for a tag
DEFAULT_IMAGE = "tensor-judge-sandbox:cpu"
DEFAULT_GPU_IMAGE = "tensor-judge-sandbox:cuda"
RUNNER_COMMAND = ["python3", "-I", "-m", "sandbox.runner"]


def kept_key(spec: SandboxSpec) -> tuple[str | None, tuple[int, int, int, int, int, str | None]]:
    """What a kept baseline's sandbox is kept by: its trust domain, then its limits."""
    return spec.trust_domain, pool_key(spec)


def listed_labels(container: Any) -> dict[str, str]:
    """The labels of a container from a sparse list (``containers.list(sparse=True)``: no
    inspect per container, which fails for one removed meanwhile): the list's own answer, as
    ``container.labels`` reads the inspected form."""
    return container.attrs.get("Labels") or {}


@register
class DockerBackend(Backend):
    """Options: ``image`` (CPU image), ``gpu_image``, ``gpu_ids`` (GPUs this worker may hand
    out; a spec asking for another is refused), ``cpus`` (CPU quota per sandbox, None for no
    quota), ``command`` (the runner command line inside the image), ``client`` (a docker
    client; default ``docker.from_env()``, i.e. DOCKER_HOST or the local socket),
    ``gpu_lock_dir``/``gpu_wait_s`` (where the per-GPU locks live, how long to wait for one),
    ``pool_size``/``pool_max_idle_s`` (a warm pool of pre-started CPU sandboxes, see
    sandbox/host/backends/docker_pool.py; 0 = none; worth it only for a long-lived backend),
    ``cpuset`` (the CPUs of every sandbox whose spec names none: a worker process's own set,
    sandbox/host/backends/cpu_sets.py; None = any), ``cgroup_root`` (where the host's cgroup file
    system is seen, to read a sandbox's CPU time: sandbox/host/backends/cgroup_cpu.py; None = not)."""

    name = "docker"

    def __init__(
        self,
        image: str = DEFAULT_IMAGE,
        gpu_image: str = DEFAULT_GPU_IMAGE,
        gpu_ids: list[str] | tuple[str, ...] | str | None = None,
        cpus: float | None = 1.0,
        command: list[str] | None = None,
        entrypoint: list[str] | None = None,
        client: Any = None,
        gpu_lock_dir: str | None = None,
        gpu_wait_s: float = 600.0,
        pool_size: int = 0,
        pool_max_idle_s: float = POOL_MAX_IDLE_S,
        cpuset: str | None = None,
        cgroup_root: str | None = CGROUP_ROOT,
    ) -> None:
        self.image = image
        self.cpuset = cpuset or None
        self.cgroup_root = cgroup_root or None
        self.can_pause = True  # until the engine says it has no cgroup freezer
        self.gpu_image = gpu_image
        if isinstance(gpu_ids, str):
            gpu_ids = [g.strip() for g in gpu_ids.split(",") if g.strip()]
        self.gpu_ids = tuple(gpu_ids or ())
        self.cpus = cpus
        self.command = list(command or RUNNER_COMMAND)
        self.entrypoint = entrypoint  # None: the image's own (the sandbox images have none)
        self._client = client
        self.gpu_lock_dir = gpu_lock_dir or tempfile.gettempdir()
        self.gpu_wait_s = gpu_wait_s
        self._image_env: dict[str, dict[str, str]] = {}
        self._image_env_at: dict[str, float] = {}
        self.pool = (
            WarmPool(self._start_pooled, int(pool_size), pool_max_idle_s) if pool_size else None
        )
        # The baseline's sibling sandbox, kept between Submits (trusted code only; with a pool
        # only: a one-shot backend keeps nothing), never for another trust domain.
        self.keeper = TrustedKeeper(self.start, kept_key) if pool_size else None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = docker.from_env()
        return self._client

    def start(self, spec: SandboxSpec) -> DockerSandbox:
        image = self.image
        if spec.gpu_id is not None:
            if self.gpu_ids and spec.gpu_id not in self.gpu_ids:
                raise ValueError(f"GPU {spec.gpu_id!r} is not one of this worker's {self.gpu_ids}")
            image = self.gpu_image
        elif self.pool is not None:
            box = self.pool.take(spec)
            if box is not None:
                return box  # type: ignore[return-value]  # the pool holds only ours
        return DockerSandbox(self, spec, image)

    def _start_pooled(self, spec: SandboxSpec) -> DockerSandbox:
        """A sandbox for the warm pool, of this backend's CPU image."""
        return DockerSandbox(self, spec, self.image)

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        """The baseline's sandbox: the one kept from an earlier Submit with the same limits
        when there is one (not for GPUs: each holds its GPU's lock)."""
        if self.keeper is None or spec.gpu_id is not None:
            return self.start(spec)
        return self.keeper.take(spec)

    def close(self) -> None:
        """Destroy the warm pool's and the keeper's idle sandboxes (sandboxes in use are their
        owners')."""
        if self.keeper is not None:
            self.keeper.close()
        if self.pool is not None:
            self.pool.close()

    def image_environment(self, image: str) -> dict[str, str]:
        """Image id and digest, cached for a minute (a long-lived backend sees a rebuilt tag)."""
        now = time.monotonic()
        if now - self._image_env_at.get(image, float("-inf")) > IMAGE_INFO_TTL_S:
            self._image_env.pop(image, None)
            self._image_env_at[image] = now
        if image not in self._image_env:
            info: dict[str, str] = {"image": image}
            try:
                img = self.client.images.get(image)
                info["image_id"] = str(img.id)
                digests = img.attrs.get("RepoDigests") or []
                info["image_digest"] = str(digests[0]) if digests else str(img.id)
            except DockerException as exc:
                info["image_id"] = f"unknown ({exc.__class__.__name__})"
            self._image_env[image] = info
        return self._image_env[image]

    def reap(self, older_than_s: float) -> int:
        """Remove labelled sandboxes created more than ``older_than_s`` ago (running or not)."""
        now = time.time()
        removed = 0
        # sparse (listed_labels): one removed meanwhile, by its judging or another sweep,
        # would fail a list that inspects each container (NotFound)
        listed = self.client.containers.list(all=True, sparse=True, filters={"label": LABEL})
        for container in listed:
            created = listed_labels(container).get(LABEL_CREATED, "")
            try:
                age_s = now - float(created)
            except ValueError:
                age_s = float("inf")  # a label we did not write: treat as an orphan
            if age_s < older_than_s:
                continue
            try:
                container.remove(force=True)
                removed += 1
            except NotFound:
                pass
            except APIError as exc:
                log.warning("reap %s: %s", container.short_id, exc)
        return removed

"""How a sandbox container is made (the Docker backend), as data: what it is started with, and
how it is frozen while another sandbox is timed on its CPUs.

Hardening (DESIGN.md, "Sandbox hardening"): no network, no IPC sharing (no /dev/shm), read-only
root, one tmpfs for /tmp (size and inode caps; exec allowed: torch extensions and Triton load
.so files from there), a fixed non-root user, every capability dropped, no-new-privileges,
Docker's default seccomp profile, a pids limit (threads count), memory == memory+swap, a CPU
quota, no core dumps, no log driver (output is read through the capped channel), an init
process, a wall-clock kill from outside, no environment but HOME/TMPDIR/PATH/OMP_NUM_THREADS/RUNNER_ENV
(and the NVIDIA variables with one GPU by id), nothing mounted from the host.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any, Protocol

from docker.types import DeviceRequest, LogConfig, Ulimit

from sandbox.host.backends.base import RUNNER_ENV, SandboxSpec

log = logging.getLogger("sandbox.host.backends.docker")

LABEL = "tensor-judge.sandbox"
LABEL_CREATED = "tensor-judge.created"
SANDBOX_UID = 10001
PATH = "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"
INODES_PER_MIB = 256  # one inode per 4 KiB page of /tmp
# CPU weights (cgroup cpu.shares): a warm sandbox still importing torch while a judging of its
# worker process is timed on the same CPUs drops to the lowest weight when it cannot be paused.
LOWEST_CPU_SHARES = 2
NORMAL_CPU_SHARES = 1024


class DockerHost(Protocol):
    """What a sandbox needs of its backend (docker.py's DockerBackend)."""

    command: list[str]
    entrypoint: list[str] | None
    cpus: float | None
    cpuset: str | None
    cgroup_root: str | None
    can_pause: bool
    gpu_lock_dir: str
    gpu_wait_s: float

    @property
    def client(self) -> Any: ...

    def image_environment(self, image: str) -> dict[str, str]: ...


def create_options(backend: DockerHost, spec: SandboxSpec, cpuset: str | None) -> dict[str, Any]:
    """The keyword arguments of ``containers.create`` for one sandbox (all but the image)."""
    env = {"HOME": "/tmp", "TMPDIR": "/tmp", "PATH": PATH, **RUNNER_ENV}
    if backend.cpus:
        # torch sizes its thread pool by the host's cores, not by the CPU quota: 2+ busy
        # threads under a 1-CPU quota get throttled by the kernel for whole periods, which
        # made a 0.4 ms gather measure 30 ms. One thread per CPU of the quota.
        env["OMP_NUM_THREADS"] = str(max(1, int(backend.cpus)))
    device_requests = None
    if spec.gpu_id is not None:
        env["NVIDIA_VISIBLE_DEVICES"] = spec.gpu_id
        env["NVIDIA_DRIVER_CAPABILITIES"] = "compute,utility"
        device_requests = [
            DeviceRequest(device_ids=[spec.gpu_id], capabilities=[["compute", "utility"]])
        ]
    labels = {**spec.labels, LABEL: "1", LABEL_CREATED: str(int(time.time()))}
    memory = f"{spec.memory_mib}m"
    return dict(
        command=backend.command,
        entrypoint=backend.entrypoint,
        user=f"{SANDBOX_UID}:{SANDBOX_UID}",
        working_dir="/tmp",
        environment=env,
        labels=labels,
        hostname="sandbox",
        network_mode="none",
        ipc_mode="none",  # no /dev/shm: /tmp stays the one writable place
        read_only=True,
        # nr_inodes: empty files cost no pages but kernel memory the size= cap misses.
        tmpfs={
            "/tmp": f"rw,exec,nosuid,nodev,size={spec.tmpfs_mib}m,"
            f"nr_inodes={spec.tmpfs_mib * INODES_PER_MIB},mode=1777"
        },
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        pids_limit=spec.pids,
        mem_limit=memory,
        memswap_limit=memory,
        nano_cpus=int(backend.cpus * 1e9) if backend.cpus else None,
        cpuset_cpus=cpuset,
        ulimits=[
            Ulimit(name="core", soft=0, hard=0),
            Ulimit(name="nofile", soft=1024, hard=1024),
        ],
        log_config=LogConfig(type="none"),
        init=True,
        stdin_open=True,
        tty=False,
        device_requests=device_requests,
        detach=True,
    )


def freeze(container: Any, backend: DockerHost, pause_only: bool, name: str) -> str:
    """Pause ``container`` (cgroup freezer), or where the engine cannot (and not
    ``pause_only``), drop it to the lowest CPU weight: how ("pause" | "weight"), '' if neither."""
    if backend.can_pause:
        try:
            container.pause()
            return "pause"
        except Exception as exc:  # e.g. "unable to freeze": no freezer in this engine
            log.info("sandbox %s: pause failed (%s); lowering its CPU weight", name, exc)
            backend.can_pause = False
    if pause_only:
        return ""
    try:
        container.update(cpu_shares=LOWEST_CPU_SHARES)
        return "weight"
    except Exception as exc:
        log.warning("sandbox %s: cannot lower its CPU weight: %s", name, exc)
        return ""


def thaw(container: Any, how: str) -> None:
    """Undo :func:`freeze` ("pause" or "weight"; nothing for '')."""
    with contextlib.suppress(Exception):
        if how == "pause":
            container.unpause()
        elif how == "weight":
            container.update(cpu_shares=NORMAL_CPU_SHARES)

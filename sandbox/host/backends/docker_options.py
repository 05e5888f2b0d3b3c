"""How a sandbox container is made (the Docker backend), as data: what it is started with.

Hardening (DESIGN.md, "Sandbox hardening"): no network, no IPC sharing (no /dev/shm), read-only
root, one tmpfs for /tmp (size and inode caps; exec allowed: torch extensions and Triton load
.so files from there), a fixed non-root user, every capability dropped, no-new-privileges,
Docker's default seccomp profile, a pids limit (threads count), memory == memory+swap, a CPU
quota, no core dumps, no log driver (output is read through the capped channel), an init
process, a wall-clock kill from outside, no environment but HOME/TMPDIR/PATH/OMP_NUM_THREADS/RUNNER_ENV
(and the NVIDIA variables with one GPU by id), nothing mounted from the host.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from docker.types import DeviceRequest, LogConfig, Ulimit

from sandbox.host.backends.base import RUNNER_ENV, SandboxSpec

LABEL = "tensor-judge.sandbox"
LABEL_CREATED = "tensor-judge.created"
SANDBOX_UID = 10001
PATH = "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"
INODES_PER_MIB = 256  # one inode per 4 KiB page of /tmp


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

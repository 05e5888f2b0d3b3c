"""Host-wide advisory locks (``flock`` on a file in a shared folder): one per GPU, so never two
sandboxes (so never two timed jobs) on one GPU; sandbox/host/backends/cpu_sets.py uses the same lock
for a CPU set's timed phases."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import time

from sandbox.host.backends.base import SandboxError


class HostLock:
    """An exclusive lock on ``lock_dir/tensor-judge-<kind>-<name>.lock``, shared by every worker
    process of the host."""

    def __init__(self, lock_dir: str, kind: str, name: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        self.path = os.path.join(lock_dir, f"tensor-judge-{kind}-{safe}.lock")
        self._fd: int | None = None

    def try_acquire(self, timeout_s: float, poll_s: float) -> float | None:
        """Take the lock, polling every ``poll_s``; the seconds waited, or None when it stayed
        busy for ``timeout_s``."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        start = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._fd = fd
                return time.monotonic() - start
            except BlockingIOError:
                if time.monotonic() - start >= timeout_s:
                    os.close(fd)
                    return None
                time.sleep(poll_s)

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
                os.close(self._fd)
            self._fd = None


class GpuLock(HostLock):
    """An exclusive host-wide lock on one GPU while a sandbox holds it: never two timed jobs on
    one GPU, even from several worker processes on the same host."""

    def __init__(self, lock_dir: str, gpu_id: str) -> None:
        super().__init__(lock_dir, "gpu", gpu_id)

    def acquire(self, timeout_s: float) -> None:
        if self.try_acquire(timeout_s, 0.1) is None:
            raise SandboxError(f"GPU {self.path} stayed busy for {timeout_s:g} s")

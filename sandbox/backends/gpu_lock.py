"""A host-wide lock per GPU: never two sandboxes (so never two timed jobs) on one GPU."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import time

from sandbox.backends.base import SandboxError


class GpuLock:
    """An exclusive host-wide lock on one GPU while a sandbox holds it: never two timed jobs on
    one GPU, even from several worker processes on the same host (an advisory ``flock``)."""

    def __init__(self, lock_dir: str, gpu_id: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", gpu_id)
        self.path = os.path.join(lock_dir, f"tensor-judge-gpu-{safe}.lock")
        self._fd: int | None = None

    def acquire(self, timeout_s: float) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._fd = fd
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise SandboxError(f"GPU {self.path} stayed busy for {timeout_s:g} s") from None
                time.sleep(0.1)

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
                os.close(self._fd)
            self._fd = None

"""The quiet-CPU guard of a timed judging (the engine's ``before_timing``/``after_timing``):
before a benchmark's first timed request, pause this process's warm pool until its sandboxes are
done importing torch and take the host-wide lock of its CPU set (sandbox/host/backends/cpu_sets.py);
afterwards, undo both and say what the timing ran under (which CPUs, how long it waited, the CPU
pressure of the timed sandboxes, contended or not)."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable, Sequence

from django.conf import settings

from sandbox.host.backends.base import Backend, Sandbox
from sandbox.host.backends.cpu_sets import CONTENDED_CPU_PRESSURE, PressureMeter, TimingLock

log = logging.getLogger(__name__)

# Before a benchmark: how long to wait for the warm pool's sandboxes still importing torch on
# this CPU set, and for another timed judging holding the set (more processes than sets).
QUIET_WAIT_S = 10.0
TIMING_LOCK_WAIT_S = 120.0
NOT_PINNED = "sandboxes not pinned to CPUs of their own"


class QuietCpus:
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

    @property
    def busy(self) -> list[str]:
        """What makes the timing contended (shown, never verified): every reason said but
        unpinned sandboxes (the local backend's development mode), which are said, not counted."""
        return [reason for reason in self._contended if reason != NOT_PINNED]

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
            contended.append(NOT_PINNED)
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

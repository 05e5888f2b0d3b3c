"""CPU sets for timed phases: each worker process's sandboxes on CPUs of their own, and a
host-wide lock per CPU set so that two timed phases never share a core.

A judging's benchmark times the student's function against the baseline; a second timed
phase on the same core (another worker process's benchmark, a warm sandbox importing torch)
inflates one side of the ratio more than the other. Worker process ``i`` pins its sandboxes
(the student's and a sibling's alike) to its own CPU set; when there are more worker processes
than CPU sets the sets are shared and the lock (an advisory ``flock``, like GpuLock)
serializes their timed phases.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from sandbox.host.backends.gpu_lock import HostLock

# A timing during which its sandboxes waited for a CPU, in all, more than this share of its
# time (their cgroups' PSI, ``PressureMeter``; the host's PSI where the kernel keeps none per
# container) is contended: something wanted their CPUs. Calibrated on the host's PSI: a timing
# alone on an idle 2-core host read 0.11-0.20 there when the grader ran in the worker, one
# beside a torch import 0.6-0.8, one under four clients' Submits 0.4-0.76; with the confined
# grader the host's PSI of a timing alone read 0.43-0.47, most of it the relay's own tasks
# waiting behind the timed code. The sandboxes' own figure is about at most the host's (their waits
# are host waits): under other work, in the same windows, 0.17-0.46 where the host read
# 0.36-0.77 (docs/benchmarks.md, "Whose CPU pressure").
CONTENDED_CPU_PRESSURE = 0.30


def parse_cpu_list(text: str) -> list[int]:
    """Linux's CPU list format ("0-3,6") as a sorted list of CPU numbers."""
    cpus: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"not a CPU list: {text!r} (e.g. 0-3,6)")
        first, last = int(lo), int(hi) if sep else int(lo)
        if last < first:
            raise ValueError(f"not a CPU list: {text!r} ({part} runs backwards)")
        cpus.update(range(first, last + 1))
    return sorted(cpus)


def available_cpus() -> list[int]:
    """The CPUs this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return list(range(os.cpu_count() or 1))


def cpuset_for_process(index: int, setting: str, cpus: list[int] | None = None) -> str | None:
    """The CPU set of worker process ``index`` (0-based), as Docker's ``--cpuset-cpus`` wants it.

    ``setting``: "auto" (one CPU each, process ``i`` on the i-th available CPU, wrapping round
    when there are more processes than CPUs), "" or "none" (no pinning), or an explicit list of
    sets separated by ";" ("0;1" or "0-1;2-3"), given to the processes in turn."""
    setting = setting.strip().lower()
    if setting in ("", "none", "off"):
        return None
    if setting == "auto":
        cpus = cpus if cpus is not None else available_cpus()
        if not cpus:
            return None
        return str(cpus[index % len(cpus)])
    sets = [s.strip() for s in setting.split(";") if s.strip()]
    for s in sets:
        parse_cpu_list(s)  # refuse a malformed set here, not at the first container start
    if not sets:
        return None
    return sets[index % len(sets)]


def cpu_stall_us(path: str = "/proc/pressure/cpu") -> int | None:
    """Linux's CPU pressure (PSI): microseconds, since boot, during which some runnable task of
    the host waited for a CPU (None where the kernel has no PSI). Over a timed phase, its growth
    divided by the phase's length says how much anything else wanted the CPUs meanwhile."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("some "):
                    for field in line.split():
                        if field.startswith("total="):
                            return int(field[len("total=") :])
    except (OSError, ValueError):
        return None
    return None


class StallSource(Protocol):
    """A timed sandbox as the pressure meter sees it (``Sandbox.cpu_stall_us``)."""

    def cpu_stall_us(self) -> int | None: ...


class PressureMeter:
    """The CPU pressure from this meter's creation to each ``share`` call: the share of that
    time during which a task waited for a CPU.

    ``boxes`` (optional) lists the timed sandboxes (it may grow: one started later counts from
    its first reading). Where the kernel keeps each one's pressure (its cgroup's PSI, read by
    the backend), the share is theirs, summed: how long the timed code waited for a CPU,
    whatever took it. Otherwise, and without ``boxes``, it is the host's (PSI "some",
    host-wide), which also counts the judge's own tasks waiting behind the timed code: with the
    confined grader, a round of the benchmark wakes the grader, the launcher's relay threads
    and the engine's stream copies in turn on the timed CPU, and each of them waiting for it
    is host pressure while nothing waits that is timed (docs/benchmarks.md, issue 25)."""

    def __init__(
        self,
        path: str = "/proc/pressure/cpu",
        boxes: Callable[[], Iterable[StallSource]] | None = None,
    ) -> None:
        self.path = path
        self.begun_s, self.stall_us = time.monotonic(), cpu_stall_us(path)
        self._boxes = boxes
        # per box seen (kept by identity): its first and its latest reading
        self._readings: dict[int, tuple[StallSource, int | None, int | None]] = {}
        self._read_boxes()
        self.source = "host"  # whose pressure the last ``share`` was: "sandboxes" | "host"

    def _read_boxes(self) -> None:
        if self._boxes is None:
            return
        for box in self._boxes():
            value = box.cpu_stall_us()
            held = self._readings.get(id(box))
            first = held[1] if held is not None and held[0] is box else value
            self._readings[id(box)] = (box, first, value)

    def share(self) -> float | None:
        """The sandboxes' pressure where every one is known, else the host's; None where the
        kernel has no PSI (or no time has passed)."""
        self._read_boxes()
        now_s = time.monotonic()
        if now_s <= self.begun_s:
            return None
        boxes = self.boxes_share(now_s)
        if boxes is not None:
            self.source = "sandboxes"
            return boxes
        self.source = "host"
        return self.host_share(now_s)

    def boxes_share(self, now_s: float | None = None) -> float | None:
        """The timed sandboxes' own pressure, summed, as of their last readings; None where a
        box's is unknown (or no box was seen)."""
        now_s = time.monotonic() if now_s is None else now_s
        if not self._readings or now_s <= self.begun_s:
            return None
        stalled_us = 0
        for _, first, last in self._readings.values():
            if first is None or last is None or last < first:
                return None
            stalled_us += last - first
        return stalled_us / 1e6 / (now_s - self.begun_s)

    def host_share(self, now_s: float | None = None) -> float | None:
        """The host's pressure (PSI "some"), None where the kernel has none."""
        now_s = time.monotonic() if now_s is None else now_s
        stall_us = cpu_stall_us(self.path)
        if self.stall_us is None or stall_us is None or now_s <= self.begun_s:
            return None
        return (stall_us - self.stall_us) / 1e6 / (now_s - self.begun_s)


class TimingLock(HostLock):
    """An exclusive host-wide lock on one CPU set while a timed phase runs on it."""

    def __init__(self, lock_dir: str, cpuset: str) -> None:
        super().__init__(lock_dir, "cpus", cpuset)

    def acquire(self, timeout_s: float) -> float | None:
        """Take the lock; returns the seconds waited, or None when it stayed busy ``timeout_s``
        (the timing then goes ahead and says it was contended)."""
        return self.try_acquire(timeout_s, 0.02)

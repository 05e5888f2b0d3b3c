"""This machine (the site is on loopback, so the stack under test runs here): waiting for its
CPUs to rest, where its CPU time goes during a part, and its load average."""

from __future__ import annotations

import os
import time
from pathlib import Path


def settle(max_s: float, busy_below: float = 0.2, window_s: float = 2.0) -> float:
    """Wait until this machine's CPUs are busy less than ``busy_below`` of a ``window_s``
    window (the site is on loopback: its warm pools have refilled after the last part), at
    most ``max_s``; the seconds waited. A class's burst arrives at a site that was idle."""
    started = time.monotonic()
    cpus = os.cpu_count() or 1
    while time.monotonic() - started < max_s:
        before = CpuMeter._busy_s()
        if before is None:
            return 0.0
        time.sleep(window_s)
        after = CpuMeter._busy_s()
        if after is None or (after - before) / (window_s * cpus) < busy_below:
            break
    return time.monotonic() - started


class CpuMeter:
    """Where this machine's CPU time goes during a part (the site is on loopback, so on this
    machine): all of it (/proc/stat, not idle), the containers' (the cgroup of Docker's
    containers, sandboxes included: charged as they run, kept after they are removed), each
    long-lived container by name, and this client. The rest is the host's: the Docker engine,
    containerd and its shims. Readings that this machine does not offer are left out."""

    DOCKER_V1 = Path("/sys/fs/cgroup/cpuacct/docker")

    def __init__(self) -> None:
        self.start = self.read()

    @staticmethod
    def _busy_s() -> float | None:
        try:
            fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        except OSError:
            return None
        ticks = [int(v) for v in fields]
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
        guest = sum(ticks[8:10]) if len(ticks) > 9 else 0  # already counted in user/nice
        return (sum(ticks) - idle - guest) / os.sysconf("SC_CLK_TCK")

    @classmethod
    def _containers_s(cls) -> dict[str, float]:
        """"containers" (all of Docker's), and each running container by name."""
        out: dict[str, float] = {}
        try:
            out["containers"] = int((cls.DOCKER_V1 / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return out
        import subprocess

        try:
            listing = subprocess.run(
                ["docker", "ps", "--no-trunc", "--format", "{{.ID}} {{.Names}}"],
                capture_output=True, text=True, timeout=10, check=True,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return out
        for line in listing.splitlines():
            cid, _, name = line.partition(" ")
            try:
                out[name] = int((cls.DOCKER_V1 / cid / "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                continue
        return out

    @classmethod
    def read(cls) -> dict[str, float]:
        usage = os.times()
        reading = {"client": usage.user + usage.system, **cls._containers_s()}
        busy = cls._busy_s()
        if busy is not None:
            reading["machine"] = busy
        return reading

    def per_judging(self, judgings: int) -> dict[str, float]:
        """CPU-seconds per judging since the start, by part: machine, containers, each
        long-lived container seen at both ends, sandboxes (containers less those), host
        (machine less containers and this client), client."""
        end = self.read()
        if not judgings:
            return {}
        delta = {k: (end[k] - self.start[k]) / judgings for k in end if k in self.start}
        out = dict(delta)
        named = {k: v for k, v in delta.items() if k not in ("machine", "containers", "client")}
        if "containers" in delta:
            out["sandboxes"] = delta["containers"] - sum(named.values())
        if "machine" in delta:
            out["host"] = delta["machine"] - delta.get("containers", 0.0) - delta["client"]
        return out


def cpu_lines(costs: dict[str, float], cores: int) -> list[str]:
    """The CPU-seconds per judging, and the throughput those cores could give at that cost."""
    if "machine" not in costs:
        return ["    CPU per judging: not readable on this machine"]
    total = costs["machine"]
    parts = sorted(
        ((k, v) for k, v in costs.items() if k not in ("machine", "containers")),
        key=lambda kv: -kv[1],
    )
    lines = [
        f"    CPU per judging {total:.2f} CPU-s: "
        + ", ".join(f"{k} {v:.2f}" for k, v in parts if v >= 0.005),
    ]
    if total > 0:
        lines.append(
            f"    at that cost {cores} cores give at most {60 * cores / total:.1f} judgings/min "
            f"(every core busy the whole time)"
        )
    return lines


def load_note() -> str:
    """This machine's load average (1 and 5 minutes), for the figures beside it."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} cores"


"""A sandbox's CPU time as its cgroup counts it, read from the host's cgroup file system.

The benchmark asks, around every timed call of the baseline, how much CPU the student's sandbox
used meanwhile (sandbox/bench/trust.py, ``ran_beside``): the kernel charges every thread and
child process of a container to its cgroup, whatever the code inside does, so this is a
figure the student's code cannot bend. One read is a file read (~10 us here), against ~1 s for
the engine's stats call, so it can be taken twice per timed call.

Where the files are depends on the cgroup version and Docker's cgroup driver:

* v1, cgroupfs driver: ``ROOT/cpuacct/docker/ID/cpuacct.usage`` (ns), or under ``cpu,cpuacct``
  where the two controllers share a mount;
* v1, systemd driver: ``ROOT/cpuacct/system.slice/docker-ID.scope/cpuacct.usage``;
* v2: ``ROOT/docker/ID/cpu.stat`` or ``ROOT/system.slice/docker-ID.scope/cpu.stat``
  (``usage_usec``).

ROOT is ``/sys/fs/cgroup`` on the host; a worker in a container sees its own cgroup there, so
compose mounts the host's read-only at ``/host/sys/fs/cgroup`` (``JUDGE_CGROUP_ROOT``). When no
file is found the answer is None, and the benchmark falls back to what it did without it.

The container's CPU pressure (PSI, ``cpu.pressure``: how long its tasks waited for a CPU) is a
cgroup v2 file: ``ROOT/docker/ID/cpu.pressure`` (v2), or, on a v1 host in hybrid mode (systemd's
default before v2), the same under ``ROOT/unified/`` (this machine: a v1 host whose unified
hierarchy still holds one cgroup per container); systemd's ``docker-ID.scope`` likewise.
"""

from __future__ import annotations

from pathlib import Path

from sandbox.host.backends.cpu_sets import cpu_stall_us

DEFAULT_ROOT = "/sys/fs/cgroup"


def candidates(root: str, container_id: str) -> list[tuple[Path, str]]:
    """Where the container's CPU usage may be, each with its format ("ns" or "cpu.stat")."""
    base = Path(root)
    found: list[tuple[Path, str]] = []
    for controller in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
        for group in (f"docker/{container_id}", f"system.slice/docker-{container_id}.scope"):
            found.append((base / controller / group / "cpuacct.usage", "ns"))
    for group in (f"docker/{container_id}", f"system.slice/docker-{container_id}.scope"):
        found.append((base / group / "cpu.stat", "cpu.stat"))
    return found


def pressure_candidates(root: str, container_id: str) -> list[Path]:
    """Where the container's CPU pressure file (cgroup v2 ``cpu.pressure``) may be."""
    base = Path(root)
    groups = (f"docker/{container_id}", f"system.slice/docker-{container_id}.scope")
    return [base / tree / group / "cpu.pressure" for tree in ("", "unified") for group in groups]


def read_usage_ns(path: Path, kind: str) -> int | None:
    """The CPU time (ns) in one such file, or None when it cannot be read."""
    try:
        text = path.read_text()
    except OSError:
        return None
    if kind == "ns":
        value = text.strip()
        return int(value) if value.isdigit() else None
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == "usage_usec" and value.strip().isdigit():
            return int(value.strip()) * 1000
    return None


class CgroupCpu:
    """The CPU time of one container, from the first candidate file that reads (found once)."""

    def __init__(self, root: str, container_id: str) -> None:
        self._root, self._id = root, container_id
        self._found: tuple[Path, str] | None = None
        self._searched = False
        self._pressure: Path | None = None
        self._pressure_searched = False

    def stall_us(self) -> int | None:
        """Microseconds during which some task of the container waited for a CPU (its cgroup's
        PSI "some" total), or None where the kernel keeps no pressure per container."""
        if self._pressure is not None:
            return cpu_stall_us(str(self._pressure))  # None once the container is gone
        if self._pressure_searched:
            return None
        self._pressure_searched = True
        for path in pressure_candidates(self._root, self._id):
            value = cpu_stall_us(str(path))
            if value is not None:
                self._pressure = path
                return value
        return None

    def processes(self) -> int | None:
        """How many processes (not threads) the container holds now: its cgroup's
        ``cgroup.procs``, beside the CPU file; None where that is not readable."""
        if self._found is None and self.usage_ns() is None:
            return None
        assert self._found is not None
        try:
            text = (self._found[0].parent / "cgroup.procs").read_text()
        except OSError:
            return None
        return sum(1 for line in text.split() if line.strip())

    def usage_ns(self) -> int | None:
        if self._found is not None:
            return read_usage_ns(*self._found)  # None once the container is gone
        if self._searched:
            return None
        self._searched = True
        for path, kind in candidates(self._root, self._id):
            value = read_usage_ns(path, kind)
            if value is not None:
                self._found = (path, kind)
                return value
        return None

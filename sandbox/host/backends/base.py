"""The runner contract: how the trusted grader talks to one sandbox, whatever isolates it.

A backend starts a fresh sandbox running the generic runner (sandbox/runner/server.py) and gives the
grader a byte channel to it. The host side never imports torch and never interprets what
crosses the channel beyond framing (sandbox/runner/wire.py); the grader does that.

Lifecycle: ``with backend.start(spec) as box: box.send(frame); box.recv(timeout_s)``; leaving
the block always destroys the sandbox (kill, remove), whatever happened inside.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

# Environment every backend gives the runner, beside its own HOME/TMPDIR/PATH. Large buffers
# (>= 1 MiB) come from mmap and go back to the OS when freed: with glibc's adaptive default, a
# correct chunked solution that keeps small tensors between big temporaries fragmented the heap
# to 1.3 GB RSS and hit the memory limit of problems 53/54; with this it stays near 270 MB.
RUNNER_ENV: dict[str, str] = {"MALLOC_MMAP_THRESHOLD_": "1048576"}


@dataclass(frozen=True)
class SandboxSpec:
    memory_mib: int = 1024  # memory + swap
    pids: int = 512
    tmpfs_mib: int = 64
    output_kib: int = 64  # cap on what the student's code prints (stdout+stderr)
    max_frame_mib: int = 256  # cap on one message from the runner
    wall_time_s: float = 300.0  # hard kill from outside, whatever the grader does
    gpu_id: str | None = None  # one GPU by UUID/index, or None for CPU only
    # CPUs the sandbox may run on ("0", "2-3"; Docker's --cpuset-cpus), None: the backend's own
    # (a worker process's CPU set, see sandbox/host/backends/cpu_sets.py) or any.
    cpuset: str | None = None
    # The GPU's host-wide lock is already held by this judging's other sandbox (the
    # baseline's, driven in alternation with the student's by one grader): do not wait for it.
    gpu_lock_held: bool = False
    labels: dict[str, str] = field(default_factory=dict)  # e.g. {"judge.submission": "42"}
    # Whose code drives it, set by the launcher (sandbox/grader/relay.py): "catalog", "version:<hash>",
    # None in a grader that runs in this process. A sandbox kept between judgings
    # (sandbox/host/backends/kept.py) is only ever handed to a judging of the same domain.
    trust_domain: str | None = None
    # The runner starts AddressSanitizer children (a CUDA submission checked by emulation):
    # no address-space cap (ASan reserves terabytes of shadow space); the local backend bounds
    # the resident memory instead, as for a GPU; a container's cgroup bounds it either way.
    sanitizers: bool = False


@dataclass(frozen=True)
class SandboxExit:
    """How the sandbox ended, as seen from outside."""

    exit_code: int | None  # None if still running when killed
    oom_killed: bool
    killed_by_us: bool  # wall-clock kill or close() while running
    output_tail: str  # last bytes of what the student printed (capped, decoded leniently)
    output_exceeded: bool  # printed more than output_kib


class SandboxError(Exception):
    """Base of channel errors; carries the exit information when the sandbox is gone."""

    def __init__(self, message: str, exit: SandboxExit | None = None) -> None:
        super().__init__(message)
        self.exit = exit


class SandboxTimeout(SandboxError):
    """No complete frame within the timeout."""


class SandboxDied(SandboxError):
    """The runner's process ended (exit, crash, OOM kill) or closed the channel."""


class FrameTooLarge(SandboxError):
    """The runner sent a frame larger than ``max_frame_mib``: an output-limit matter."""


class Closing:
    """A context manager that calls ``close()`` on leaving (a sandbox, a baseline's box)."""

    def close(self) -> object:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Sandbox(Closing, abc.ABC):
    """One live sandbox. Not thread-safe; one grader drives it."""

    @abc.abstractmethod
    def send(self, frame: bytes, op: str = "") -> None:
        """Write one already-framed message to the runner's input. ``op`` is the request's op
        (sandbox/runner/protocol.py), told by the caller that built it: a wrapper that times
        phases or keeps sandboxes reads it there, never by parsing the frame again."""

    @abc.abstractmethod
    def recv(self, timeout_s: float) -> bytes:
        """Read one complete frame (header included) or raise a SandboxError."""

    @abc.abstractmethod
    def close(self) -> SandboxExit:
        """Kill if running, collect exit info, remove everything. Idempotent."""

    def discard(self) -> None:
        """Destroy a sandbox whose runner said goodbye, without collecting how it ended (nothing
        more to learn from it): the fewest engine calls. Default: ``close``."""
        self.close()

    @property
    @abc.abstractmethod
    def environment(self) -> dict[str, str]:
        """What to record with a result: backend, image id, device, limits."""

    def quiet(self, on: bool) -> bool:
        """``on``: stop every process of the sandbox (or, where it cannot, give it the least
        CPU) while another sandbox on its CPUs is timed; ``on`` False: undo. True when the
        sandbox was quieted (or let go). Default: not supported, nothing done (False)."""
        return False

    def cpu_ns(self) -> int | None:
        """The CPU time every process of the sandbox has used so far, in ns, as the kernel
        counts it (not as anything inside reports it), or None where the backend cannot tell.
        The benchmark reads it around the baseline's timed calls (sandbox/bench/trust.py,
        ``ran_beside``). Default: None."""
        return None

    def cpu_stall_us(self) -> int | None:
        """How long, in us so far, some process of the sandbox was ready to run and waited for
        a CPU, as the kernel counts it (its cgroup's CPU pressure, PSI "some"), or None where
        the backend cannot tell. The benchmark reads it around a shape's timing: a timed
        sandbox that waited is a contended timing (sandbox/host/backends/cpu_sets.py,
        ``PressureMeter``). Default: None."""
        return None

    def processes(self) -> int | None:
        """How many processes the sandbox holds now, as the kernel counts them (its cgroup),
        or None where the backend cannot tell. The grader compares it with the count at the
        runner's hello: a submission may not leave processes running (sandbox/grader/session.py).
        Default: None."""
        return None


class Backend(abc.ABC):
    name: str

    @abc.abstractmethod
    def start(self, spec: SandboxSpec) -> Sandbox:
        """Start a fresh sandbox whose runner waits for its first message."""

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        """A sandbox that will only ever run trusted code on the grader's inputs (the
        baseline's sibling): a long-lived backend may hand out one kept from an earlier
        judging (sandbox/host/backends/kept.py). Default: a fresh one, as ``start``."""
        return self.start(spec)

    def reap(self, older_than_s: float) -> int:
        """Destroy orphaned sandboxes left by a crashed worker; returns how many."""
        return 0

    def close(self) -> None:  # noqa: B027  (optional: most backends hold nothing)
        """Release what the backend keeps between judgings (the docker backend's warm pool)."""


_REGISTRY: dict[str, type[Backend]] = {}


def register(cls: type[Backend]) -> type[Backend]:
    _REGISTRY[cls.name] = cls
    return cls


def get_backend(name: str, **options: object) -> Backend:
    """The backend registered under ``name`` ("local", "docker"), built with ``options``."""
    import sandbox.host.backends  # noqa: F401  (registers the built-in backends)

    try:
        cls = _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown sandbox backend {name!r}: use one of {sorted(_REGISTRY)}"
        ) from None
    return cls(**options)  # type: ignore[arg-type]

"""One running sandbox container of the Docker backend (docker.py) and its channel: started with
the hardening of docker_options.py, ended from outside on its wall time.

The channel is the container's attached stdin/stdout, demultiplexed by attach.py."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from docker.errors import APIError, NotFound

from sandbox.host.backends import base
from sandbox.host.backends.attach import AttachStream, FrameOverLimit
from sandbox.host.backends.base import (
    Sandbox,
    SandboxDied,
    SandboxExit,
    SandboxSpec,
    SandboxTimeout,
)
from sandbox.host.backends.cgroup_cpu import CgroupCpu
from sandbox.host.backends.docker_options import DockerHost, create_options, freeze, thaw
from sandbox.host.backends.gpu_lock import GpuLock
from sandbox.runner.framing import FrameError

log = logging.getLogger("sandbox.host.backends.docker")

# What the runner itself may print on stderr besides the student's output (a traceback of its
# own, a warning) before the output limit counts as exceeded.
STDERR_SLACK_BYTES = 16 * 1024




class DockerSandbox(Sandbox):
    """One running container and the attach socket that is its channel."""

    def __init__(self, backend: DockerHost, spec: SandboxSpec, image: str) -> None:
        self._backend = backend
        self._spec = spec
        self._image = image
        self._closed = False
        self._exit: SandboxExit | None = None
        self._killed_by_us = False
        self._lock = threading.Lock()
        self._stream = AttachStream(spec.max_frame_mib * 1024 * 1024)
        self._eof = False
        self._output_cap = spec.output_kib * 1024 + STDERR_SLACK_BYTES
        self._container: Any = None
        self._pooled = False  # started ahead by the warm pool, handed out by rearm()
        self._frozen_by = ""  # "pause" | "weight" while frozen (see freeze)
        self._sock: socket.socket | None = None
        self._timer: threading.Timer | None = None
        self._gpu_lock: GpuLock | None = None
        self._cgroup_cpu: CgroupCpu | None = None
        self.started_s = 0.0
        try:
            if spec.gpu_id is not None and not spec.gpu_lock_held:
                self._gpu_lock = GpuLock(backend.gpu_lock_dir, spec.gpu_id)
                self._gpu_lock.acquire(backend.gpu_wait_s)
            self._create_and_start()
        except BaseException:
            self.close()
            raise


    def _create_and_start(self) -> None:
        spec, backend = self._spec, self._backend
        start = time.monotonic()
        self._container = backend.client.containers.create(
            self._image, **create_options(backend, spec, self.cpuset)
        )
        # Attach before start so no byte of output can be missed.
        raw = backend.client.api.attach_socket(
            self._container.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
        )
        self._raw = raw  # keeps the HTTP response (and so the connection) alive
        self._sock = raw._sock if hasattr(raw, "_sock") else raw
        self._container.start()
        self.started_s = time.monotonic() - start
        self._timer = threading.Timer(spec.wall_time_s, self._wall_clock_kill)
        self._timer.daemon = True
        self._timer.start()
        log.debug("sandbox %s started in %.3f s", self._container.short_id, self.started_s)

    @property
    def spec(self) -> SandboxSpec:
        return self._spec

    @property
    def cpuset(self) -> str | None:
        """The CPUs this sandbox runs on: its spec's, else its backend's (None: any)."""
        return self._spec.cpuset or self._backend.cpuset

    def heard(self) -> bool:
        """Whether the runner's first output has been read, by whichever thread reads the
        channel (another thread may ask: this touches no socket)."""
        return self._stream.heard

    def has_spoken(self) -> bool:
        """Whether the runner has written anything yet (a pooled runner writes its hello once
        torch is imported: until then it is busy on its CPUs). Reads nothing."""
        if self._stream.pending():
            return True
        if self._sock is None:
            return False
        try:
            self._sock.settimeout(0)
            return self._sock.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            return False
        except OSError:
            return True  # gone: not busy either

    def alive(self, check_state: bool = True) -> bool:
        """Still running with an open channel (a pooled sandbox is checked before hand-out).
        ``check_state`` False: the channel only (a runner that ended closed it), without asking
        the engine (a round trip on the judging's path)."""
        if self._closed or self._eof or self._sock is None or self._container is None:
            return False
        try:
            self._sock.settimeout(0)
            if self._sock.recv(1, socket.MSG_PEEK) == b"":
                return False
        except BlockingIOError:
            pass  # nothing to read yet: fine
        except OSError:
            return False
        if not check_state:
            return True
        try:
            self._container.reload()
            return bool(self._container.attrs["State"]["Running"])
        except Exception:
            return False

    def freeze(self, pause_only: bool = False) -> bool:
        """Stop every process of the sandbox while another one is timed on its CPU set
        (docker_options.freeze: paused, or else at the lowest CPU weight). False when neither
        worked."""
        self._frozen_by = freeze(self._container, self._backend, pause_only, self.container_id)
        return bool(self._frozen_by)

    def thaw(self) -> None:
        """Undo ``freeze``."""
        how, self._frozen_by = self._frozen_by, ""
        thaw(self._container, how)

    def cpu_ns(self) -> int | None:
        """The container's CPU time (its cgroup's file under the backend's ``cgroup_root``,
        sandbox/host/backends/cgroup_cpu.py), or None where that is not readable."""
        return self._from_cgroup(CgroupCpu.usage_ns)

    def cpu_stall_us(self) -> int | None:
        """Its CPU pressure (cgroup v2's file, a v1 host's unified hierarchy included)."""
        return self._from_cgroup(CgroupCpu.stall_us)

    def processes(self) -> int | None:
        return self._from_cgroup(CgroupCpu.processes)

    def _from_cgroup(self, read: Callable[[CgroupCpu], int | None]) -> int | None:
        if self._container is None or not self._backend.cgroup_root:
            return None
        if self._cgroup_cpu is None:
            self._cgroup_cpu = CgroupCpu(self._backend.cgroup_root, self._container.id)
        return read(self._cgroup_cpu)

    def quiet(self, on: bool) -> bool:
        """``freeze`` / ``thaw`` (one engine call each where ``docker pause`` works)."""
        if on:
            return self.freeze()
        self.thaw()
        return True

    def rearm(self, spec: SandboxSpec) -> None:
        """Hand a pooled sandbox to a judging: same limits, its own wall-clock limit from now."""
        if self._timer is not None:
            self._timer.cancel()
        self._spec = spec
        self._pooled = True
        self._timer = threading.Timer(spec.wall_time_s, self._wall_clock_kill)
        self._timer.daemon = True
        self._timer.start()

    def _wall_clock_kill(self) -> None:
        log.warning("sandbox %s: wall-clock limit reached, killing", self.container_id)
        self._kill()

    def _kill(self) -> None:
        with self._lock:
            if self._closed and self._container is None:
                return
            container = self._container
        if container is None:
            return
        try:
            container.reload()
            if container.attrs["State"]["Running"]:
                self._killed_by_us = True
                # Hang up first: while the runner is blocked writing to an attach stream we
                # do not read, Docker's kill waits seconds for that copy to finish.
                self._hang_up()
                container.kill()
        except NotFound:
            pass
        except Exception as exc:  # runs on the timer thread too: never let it raise
            log.warning("sandbox %s: kill failed: %s", self.container_id, exc)

    def _hang_up(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    @property
    def container_id(self) -> str:
        return str(self._container.id) if self._container is not None else ""

    def close(self) -> SandboxExit:
        if self._exit is not None:
            return self._exit
        return self._tear_down(collect=True)

    def discard(self) -> None:
        """``close`` in one engine call (a forced remove kills and removes): for a sandbox
        whose runner said goodbye, removed after the verdict. Its exit is not collected."""
        if self._exit is None:
            self._tear_down(collect=False)

    def _tear_down(self, collect: bool) -> SandboxExit:
        """Stop the wall clock, learn how it ended (``collect``: kill, wait, read the last
        stderr; else nothing), close the channel, remove the container, release the GPU."""
        with self._lock:
            self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        exit_info = (
            self._collect_exit(kill=True) if collect else SandboxExit(None, False, True, "", False)
        )
        # The socket object only lets go of its fd once the SocketIO wrapped around it by the
        # HTTP layer is closed too (socket._io_refs): close both, or every judging leaks one.
        for closable in (getattr(self, "_raw", None), self._sock):
            if closable is not None:
                with contextlib.suppress(OSError):
                    closable.close()
        if self._container is not None:
            try:
                self._container.remove(force=True)
            except NotFound:
                pass
            except Exception as exc:  # removal in progress, engine gone: the reaper finishes
                log.warning("sandbox %s: remove failed: %s", self.container_id, exc)
        if self._gpu_lock is not None:
            self._gpu_lock.release()
        self._exit = exit_info
        return exit_info

    def _drain(self, budget_s: float) -> None:
        """Read what is left on the socket (the last stderr lines), bounded in time and size."""
        if self._sock is None or self._eof:
            return
        deadline = time.monotonic() + budget_s
        try:
            while not self._eof and self._stream.stderr_total <= self._output_cap:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._sock.settimeout(remaining)
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    self._eof = True
                else:
                    self._stream.feed(chunk)
        except OSError:
            return

    def _collect_exit(self, *, kill: bool) -> SandboxExit:
        exit_code: int | None = None
        oom = False
        if self._container is not None:
            try:
                self._container.reload()
                state = self._container.attrs["State"]
                if state["Running"] and kill:
                    self._killed_by_us = True
                    self._hang_up()
                    with contextlib.suppress(APIError):  # it may have ended meanwhile
                        self._container.kill()
                    with contextlib.suppress(Exception):  # a read timeout of the wait
                        self._container.wait(timeout=10)
                    self._container.reload()
                    state = self._container.attrs["State"]
                if not state["Running"]:
                    exit_code = int(state["ExitCode"])
                    self._drain(0.5)
                oom = bool(state.get("OOMKilled"))
            except Exception as exc:  # the engine went away: report what we know
                log.warning("sandbox %s: no exit state: %s", self.container_id, exc)
        return SandboxExit(
            exit_code=exit_code,
            oom_killed=oom,
            killed_by_us=self._killed_by_us,
            output_tail=self._stream.stderr_tail(),
            output_exceeded=self._stream.stderr_total > self._output_cap,
        )

    def _died(self, message: str) -> SandboxDied:
        """The runner is gone: wait briefly for Docker to record how, then describe it."""
        if self._container is not None:
            try:
                self._container.wait(timeout=5)
            except Exception:  # still running: _collect_exit kills it
                pass
        return SandboxDied(message, self._collect_exit(kill=True))


    def send(self, frame: bytes, op: str = "") -> None:
        if self._closed or self._sock is None:
            raise SandboxDied("sandbox already closed", self._exit)
        try:
            self._sock.settimeout(max(1.0, self._spec.wall_time_s))
            self._sock.sendall(frame)
        except TimeoutError:
            raise SandboxTimeout("the runner does not read its input") from None
        except OSError as exc:
            raise self._died(f"channel closed while sending: {exc}") from None

    def recv(self, timeout_s: float) -> bytes:
        if self._closed or self._sock is None:
            raise SandboxDied("sandbox already closed", self._exit)
        deadline = time.monotonic() + timeout_s
        while True:
            frame = self._take_frame()
            if frame is not None:
                return frame
            if self._stream.stderr_total > self._output_cap:
                self._kill()
                raise self._died("output limit exceeded")
            if self._eof:
                raise self._died("the runner ended without answering")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SandboxTimeout(f"no answer within {timeout_s:.3g} s")
            self._sock.settimeout(remaining)
            try:
                chunk = self._sock.recv(1 << 20)
            except TimeoutError:
                raise SandboxTimeout(f"no answer within {timeout_s:.3g} s") from None
            except OSError as exc:
                raise self._died(f"channel error: {exc}") from None
            if not chunk:
                self._eof = True
            else:
                self._stream.feed(chunk)

    def _take_frame(self) -> bytes | None:
        """One complete frame from the stream, or None if more bytes are needed."""
        try:
            return self._stream.take_frame()
        except FrameError as exc:
            self._kill()
            raise base.SandboxError(
                f"garbage on the runner channel: {exc}", self._collect_exit(kill=True)
            ) from None
        except FrameOverLimit as exc:
            self._kill()
            raise base.FrameTooLarge(
                f"frame of {exc.length} bytes exceeds {self._spec.max_frame_mib} MiB",
                self._collect_exit(kill=True),
            ) from None


    @property
    def environment(self) -> dict[str, str]:
        env = dict(self._backend.image_environment(self._image))
        env.update(
            {
                "backend": "docker",
                "memory_mib": str(self._spec.memory_mib),
                "pids": str(self._spec.pids),
                "tmpfs_mib": str(self._spec.tmpfs_mib),
                "cpus": str(self._backend.cpus or "unlimited"),
                "cpuset": self.cpuset or "any",
                "device": f"cuda:{self._spec.gpu_id}" if self._spec.gpu_id else "cpu",
                "sandbox": "pooled" if self._pooled else "fresh",
            }
        )
        return env

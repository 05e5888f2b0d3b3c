"""The local backend: the runner as a plain subprocess with resource limits.

NOT A SECURITY BOUNDARY. The student's code runs as the worker's own user, with the worker's
filesystem and network. It exists for the offline CLI (a student judging their own file),
problem authoring and fast tests. The site refuses it when DEBUG is off unless
JUDGE_ALLOW_LOCAL_BACKEND is set (see judge_site/submissions/engine.py).

What it does give: a fresh process per judging in its own session (close() kills the whole
process group), rlimits (address space, CPU time, file size, no core dumps; a runner with a
GPU gets no address-space limit, CUDA needs the room, but a resident-memory watch), a private
temp dir as TMPDIR and HOME removed on close, a minimal environment, and a capped channel.
This module must not import torch.
"""

from __future__ import annotations

import contextlib
import os
import queue
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from sandbox.host.backends import forkserver
from sandbox.host.backends.base import (
    RUNNER_ENV,
    Backend,
    FrameTooLarge,
    Sandbox,
    SandboxDied,
    SandboxError,
    SandboxExit,
    SandboxSpec,
    SandboxTimeout,
    register,
)
from sandbox.runner import framing

RUNNER = ["-I", "-m", "sandbox.runner"]  # the package is importable where the site runs
OUTPUT_NAME = ".judge-output"
# torch maps a lot of address space it never touches; the limit is memory_mib plus this.
ADDRESS_SPACE_HEADROOM_MIB = 1024
FILE_SIZE_LIMIT_MIB = 64
RSS_POLL_S = 0.1  # a GPU runner's resident memory is read this often (rss_cap_bytes)


class _EndOfStream:
    pass


class LocalSandbox(Sandbox):
    def __init__(self, spec: SandboxSpec, python: str, command: list[str] | None = None) -> None:
        self.spec = spec
        self.tmp = Path(tempfile.mkdtemp(prefix="judge-local-"))
        self.output_path = self.tmp / OUTPUT_NAME
        self._exit: SandboxExit | None = None
        self._killed = False
        self._queue: queue.Queue[bytes | SandboxError | _EndOfStream] = queue.Queue()
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.tmp),
            "TMPDIR": str(self.tmp),
            "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": os.environ.get("JUDGE_LOCAL_THREADS", "1"),
            **RUNNER_ENV,
        }
        if spec.gpu_id is None:
            # No GPU: @triton.jit kernels run in Triton's interpreter on CPU tensors, as in the
            # triton sandbox image (sandbox/images/Dockerfile.triton). Read only by Triton.
            env["TRITON_INTERPRET"] = "1"
        if spec.sanitizers:  # a CUDA submission checked by emulation: the emulator's core,
            # compiled once on this host into a read-only folder the runner links (build.py)
            from sandbox.runner.cuda_load import host_env  # noqa: PLC0415 (torch-free, rare)

            env.update(host_env())
        limits = rlimits_for(spec)
        self._rss_cap = rss_cap_bytes(spec)
        self._oom = False
        self.proc: subprocess.Popen[bytes] | forkserver.ForkedProcess
        if command is None and forkserver.enabled():
            try:  # a runner forked from one that imported torch already (same limits, own session)
                base = {k: v for k, v in env.items() if k not in ("HOME", "TMPDIR")}
                self.proc = forkserver.zygote(python, base).spawn(
                    str(self.tmp), str(self.output_path), limits
                )
            except forkserver.ZygoteGone:
                self.proc = self._popen(python, command, env, limits)
        else:
            self.proc = self._popen(python, command, env, limits)
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self._timer = threading.Timer(spec.wall_time_s, self._kill)
        self._timer.daemon = True
        self._timer.start()
        if self._rss_cap is not None:
            threading.Thread(target=self._watch_rss, daemon=True).start()

    def _watch_rss(self) -> None:
        """A GPU runner has no RLIMIT_AS: its resident memory is read every RSS_POLL_S and the
        group killed (reported as out of memory) once it passes the cap."""
        assert self._rss_cap is not None
        while self.proc.poll() is None and self._exit is None:
            rss = proc_rss_bytes(self.proc.pid)
            if rss is not None and rss > self._rss_cap:
                self._oom = True
                self._kill()
                return
            time.sleep(RSS_POLL_S)

    def _popen(
        self, python: str, command: list[str] | None, env: dict[str, str],
        limits: list[tuple[int, int]],
    ) -> subprocess.Popen[bytes]:
        argv = [python, *command] if command else [
            python, *RUNNER, "--output-file", str(self.output_path)
        ]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.tmp,
            env=env,
            start_new_session=True,
        )
        # Limits set from outside with prlimit (no preexec_fn: unsafe in a threaded worker).
        # The runner loads no student code before its first request, so there is no race.
        try:
            for which, value in limits:
                resource.prlimit(proc.pid, which, (value, value))
        except OSError:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        return proc

    def _read_loop(self) -> None:
        stream: IO[bytes] | None = self.proc.stdout
        assert stream is not None
        cap = self.spec.max_frame_mib * 1024 * 1024
        try:
            while True:
                header = stream.read(framing.HEADER.size)
                if not header:
                    self._queue.put(_EndOfStream())
                    return
                length = framing.parse_header(header)
                if length > cap:
                    self._queue.put(FrameTooLarge(f"frame of {length} bytes exceeds {cap}"))
                    return
                payload = stream.read(length)
                if len(payload) != length:
                    self._queue.put(_EndOfStream())
                    return
                self._queue.put(header + payload)
        except framing.FrameError as exc:
            self._queue.put(SandboxError(f"malformed frame: {exc}"))
        except Exception as exc:  # the pipe broke under us
            self._queue.put(SandboxError(f"channel error: {exc}"))

    def send(self, frame: bytes, op: str = "") -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(frame)
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise SandboxDied("the runner is gone", self._finish()) from None

    def recv(self, timeout_s: float) -> bytes:
        try:
            item = self._queue.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            raise SandboxTimeout(f"no answer within {timeout_s:.1f} s") from None
        if isinstance(item, bytes):
            return item
        if isinstance(item, _EndOfStream):
            raise SandboxDied("the runner ended", self._finish(wait_s=2.0))
        item.exit = self._finish()
        raise item

    def cpu_ns(self) -> int | None:
        """The runner's CPU time (all its threads, and children it has waited for) as the
        kernel counts it in /proc/PID/stat, read from outside; None once it has ended. A child
        that runs on unwaited is not counted: the local backend is no security boundary."""
        if self.proc.poll() is not None:
            return None
        return proc_cpu_ns(self.proc.pid)

    def quiet(self, on: bool) -> bool:
        """SIGSTOP / SIGCONT to the runner's process group (its session: children that made
        a session of their own escape it; the local backend is no security boundary)."""
        if self.proc.poll() is not None:
            return False
        try:
            os.killpg(self.proc.pid, signal.SIGSTOP if on else signal.SIGCONT)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def _kill(self) -> None:
        if self.proc.poll() is None:
            self._killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def _finish(self, wait_s: float = 0.0) -> SandboxExit:
        """Kill the process group, reap, and describe how it ended (cached)."""
        if self._exit is not None:
            return self._exit
        if wait_s:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=wait_s)
        self._kill()
        code = self.proc.wait()
        self._timer.cancel()
        size, tail = 0, ""
        with contextlib.suppress(OSError):
            size = self.output_path.stat().st_size
            with open(self.output_path, "rb") as f:
                f.seek(max(0, size - 4096))
                tail = f.read().decode("utf-8", "replace")
        self._exit = SandboxExit(
            exit_code=code,
            # RLIMIT_AS makes a CPU runner's allocations fail instead; a GPU runner's watch kills
            oom_killed=self._oom,
            killed_by_us=self._killed,
            output_tail=tail,
            output_exceeded=size > self.spec.output_kib * 1024,
        )
        return self._exit

    def close(self) -> SandboxExit:
        self._finish()  # kill first: closing a pipe a reader thread is blocked on would hang
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        assert self._exit is not None
        return self._exit

    @property
    def environment(self) -> dict[str, str]:
        return {
            "backend": "local",
            "isolation": "none: the local backend is NOT a security boundary",
            "image": "",
            "memory_mib": str(self.spec.memory_mib),
        }


@register
class LocalBackend(Backend):
    """Subprocess sandboxes for development, the offline CLI and tests. Not a security boundary."""

    name = "local"

    def __init__(self, python: str | None = None, command: list[str] | None = None) -> None:
        self.python = python or sys.executable
        self.command = command  # arguments after the interpreter (default: the runner)

    def start(self, spec: SandboxSpec) -> Sandbox:
        return LocalSandbox(spec, self.python, self.command)


def rlimits_for(spec: SandboxSpec) -> list[tuple[int, int]]:
    """The runner's rlimits. Without a GPU: address space (memory + headroom), CPU time, file
    size, no core. With one (``gpu_id`` set) no RLIMIT_AS: CUDA reserves far more virtual
    address space than it uses (tens of GiB for unified addressing) and dies before the hello
    under any useful cap; its host memory is bounded by rss_cap_bytes' watch instead."""
    memory = (spec.memory_mib + ADDRESS_SPACE_HEADROOM_MIB) * 1024 * 1024
    cpu_s = int(spec.wall_time_s) + 1
    fsize = max(FILE_SIZE_LIMIT_MIB, spec.output_kib // 1024 * 4) * 1024 * 1024
    limits = [
        (resource.RLIMIT_CPU, cpu_s),
        (resource.RLIMIT_FSIZE, fsize),
        (resource.RLIMIT_CORE, 0),
    ]
    if spec.gpu_id is None and not spec.sanitizers:
        limits.insert(0, (resource.RLIMIT_AS, memory))
    return limits


def rss_cap_bytes(spec: SandboxSpec) -> int | None:
    """A GPU runner's resident-memory cap (memory + the CUDA context's headroom), polled from
    outside every RSS_POLL_S: a burst shorter than that can pass it (the local backend is no
    security boundary; a Docker sandbox's cgroup bounds it exactly). None without a GPU."""
    if spec.gpu_id is None and not spec.sanitizers:
        return None
    return (spec.memory_mib + ADDRESS_SPACE_HEADROOM_MIB) * 1024 * 1024


def proc_rss_bytes(pid: int) -> int | None:
    """Process ``pid``'s resident set (/proc/PID/statm, second field, in pages), or None."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def proc_cpu_ns(pid: int) -> int | None:
    """utime + stime + cutime + cstime of process ``pid`` in ns (/proc/PID/stat), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: the fields after it follow
    # its last ')'; utime is field 14 of the line, so the 12th after the name.
    fields = text[text.rfind(")") + 2:].split()
    try:
        return sum(int(value) for value in fields[11:15]) * _TICK_NS
    except (ValueError, IndexError):
        return None

"""The parent's side of the local backend's fork server (sandbox/host/backends/zygote.py).

A runner started fresh spends about 2 CPU-seconds importing torch before its first request;
the offline CLI, package authoring and the test suite start thousands. ``spawn`` instead asks a
zygote, which imported torch and the runner's modules once, to fork a runner whose stdin and
stdout are the pipes it is handed. ``ForkedProcess`` answers what ``LocalSandbox`` asks of a
``subprocess.Popen`` (pid, poll, wait): the zygote reaps its children and reports how each ended.

One zygote per (interpreter, environment), started on first use, replaced when it dies, ended
when this process exits. ``JUDGE_LOCAL_FORK=0`` turns it off (a fresh process per sandbox).
This module must not import torch.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

ZYGOTE = Path(__file__).resolve().with_name("zygote.py")
START_TIMEOUT_S = 120.0  # interpreter and torch import, on a busy machine
FORK_TIMEOUT_S = 30.0


def enabled() -> bool:
    return os.environ.get("JUDGE_LOCAL_FORK", "1") != "0"


class ZygoteGone(OSError):
    """The fork server died or did not answer: the caller falls back to a fresh process."""


class ForkedProcess:
    """A runner forked by the zygote: what LocalSandbox needs of a Popen."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._done = threading.Event()
        self.stdin: Any = None
        self.stdout: Any = None

    def _ended(self, code: int) -> None:
        self.returncode = code
        self._done.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(f"forked runner {self.pid}", timeout or 0.0)
        assert self.returncode is not None
        return self.returncode


class Zygote:
    def __init__(self, python: str, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        self.proc = subprocess.Popen(
            [python, "-I", str(ZYGOTE), str(theirs.fileno())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),), env=env, start_new_session=True,
        )
        theirs.close()
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._next_id = 0
        self._waiting: dict[int, list[Any]] = {}  # request id -> [Event, pid]
        self._children: dict[int, ForkedProcess] = {}
        self._early: dict[int, int] = {}  # exits reported before their fork reply was handled
        self.alive = True
        self._ready = threading.Event()
        threading.Thread(target=self._read_loop, daemon=True, name="zygote-reader").start()
        if not self._ready.wait(START_TIMEOUT_S) or not self.alive:
            self.close()
            raise ZygoteGone("the fork server did not start")

    def _read_loop(self) -> None:
        try:
            while True:
                data = self._sock.recv(65536)
                if not data:
                    break
                message = json.loads(data)
                if message.get("ready"):
                    self._ready.set()
                elif "exit" in message:
                    with self._lock:
                        child = self._children.pop(message["pid"], None)
                        if child is None:
                            self._early[message["pid"]] = message["exit"]
                    if child is not None:
                        child._ended(int(message["exit"]))
                else:
                    with self._lock:
                        slot = self._waiting.get(message["id"])
                    if slot is not None:
                        slot[1] = int(message["pid"])
                        slot[0].set()
        except (OSError, ValueError):
            pass
        self._gone()

    def _gone(self) -> None:
        """The zygote ended: its children can no longer be reaped by it (they were reparented);
        report them ended, so nobody waits forever (their sessions are killed by their owners)."""
        self.alive = False
        self._ready.set()
        with self._lock:
            children, self._children = list(self._children.values()), {}
            waiting = list(self._waiting.values())
        for child in children:
            child._ended(-9)
        for slot in waiting:
            slot[0].set()

    def spawn(self, tmp: str, output: str, limits: list[tuple[int, int]]) -> ForkedProcess:
        """Fork a runner with fresh pipes for its stdin and stdout (the parent's ends attached)."""
        if not self.alive:
            raise ZygoteGone("the fork server is gone")
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        event = threading.Event()
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            self._waiting[request_id] = [event, None]
        request = {"id": request_id, "tmp": tmp, "output": output,
                   "limits": [list(limit) for limit in limits]}
        try:
            with self._send_lock:
                socket.send_fds(self._sock, [json.dumps(request).encode()], [stdin_r, stdout_w])
        except OSError as exc:
            for fd in (stdin_r, stdin_w, stdout_r, stdout_w):
                os.close(fd)
            with self._lock:
                self._waiting.pop(request_id, None)
            raise ZygoteGone(f"the fork server is gone: {exc}") from exc
        os.close(stdin_r)
        os.close(stdout_w)
        ok = event.wait(FORK_TIMEOUT_S)
        with self._lock:
            pid = self._waiting.pop(request_id, [None, None])[1]
            if ok and pid is not None:
                child = ForkedProcess(pid)
                early = self._early.pop(pid, None)
                if early is None:
                    self._children[pid] = child
        if not ok or pid is None:
            os.close(stdin_w)
            os.close(stdout_r)
            raise ZygoteGone("the fork server did not fork")
        if early is not None:
            child._ended(early)
        child.stdin = open(stdin_w, "wb")  # noqa: SIM115 - owned by the sandbox, closed there
        child.stdout = open(stdout_r, "rb")  # noqa: SIM115
        return child

    def close(self) -> None:
        self.alive = False
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


_zygotes: dict[tuple[str, tuple[tuple[str, str], ...]], Zygote] = {}
_zygotes_lock = threading.Lock()


def zygote(python: str, env: dict[str, str]) -> Zygote:
    """The running zygote for this interpreter and environment (started or replaced here)."""
    key = (python, tuple(sorted(env.items())))
    with _zygotes_lock:
        current = _zygotes.get(key)
        # Its process is asked too: the reader thread may not have seen its socket close yet.
        if current is None or not current.alive or current.proc.poll() is not None:
            if current is not None:
                current.close()
            current = _zygotes[key] = Zygote(python, env)
        return current


@atexit.register
def close_all() -> None:
    with _zygotes_lock:
        for z in _zygotes.values():
            z.close()
        _zygotes.clear()

"""The sandbox backend as a service, the grader's side: how the confined grader drives sandboxes
it cannot start (the launcher's side, which starts them, is sandbox/host/relay_service.py).

Authors' code (a package's ``tests.py``, ``solution.py``, a practice folder's ``test.py``) runs
in the confined grader process (sandbox/grader/process.py): a sandbox of its own, with no Docker
socket, no database or broker credentials, no network. It still needs sandboxes for the
student's file and the baseline; the worker's launcher (sandbox/host/confined.py), which holds the
engine, starts them on its behalf and relays their frames. Both sides speak in frames
(sandbox/runner/framing.py) over the grader process's stdin/stdout:

grader -> launcher, each with a request id ``rid``:
  ``{"rpc": "start", "trusted": bool, "spec": {...}}``       -> ``{"box": id, "environment": {...}}``
  ``{"rpc": "send", "box": id}`` + the frame as blob         -> ``{}``
  ``{"rpc": "recv", "box": id, "timeout_s": t}``             -> ``{"processes": n}`` + the frame
  ``{"rpc": "exchange", "box": id, "timeout_s": t}`` + frame  -> as ``recv``, after sending it
  ``{"rpc": "close" | "discard", "box": id}``                -> ``{"exit": {...}}`` / ``{}``
  ``{"rpc": "quiet", "box": id, "on": bool}``                -> ``{"value": bool}``
  ``{"rpc": "cpu_ns" | "cpu_stall_us" | "processes", "box": id}`` -> ``{"value": int | None}``
  a failure answers ``{"error": {"type": "SandboxTimeout" | ..., "message", "exit"}}``.
grader -> launcher without an answer: ``{"event": "progress" | "item" | "result", ...}``.
launcher -> grader: ``{"re": rid, ...}`` answers, and jobs (``JobOp`` below: ``package``, then
``judge`` or ``check`` of it; ``bye``) that sandbox/grader/process.py runs.

The launcher decides what the grader may not (labels, GPU, trust domain, limits, how many
sandboxes at once): ``BoxService`` in sandbox/host/relay_service.py says how. No Django, no torch.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from concurrent.futures import Future
from enum import StrEnum
from typing import Any, BinaryIO

from sandbox.host.backends import base
from sandbox.host.backends.base import Backend, Sandbox, SandboxError, SandboxExit, SandboxSpec
from sandbox.runner import framing

MAX_JOB_FRAME_MIB = 512


class JobOp(StrEnum):
    """The launcher's jobs for the confined grader (each job's ``op``)."""

    PACKAGE = "package"  # {version, folder, files} + the files as blob
    JUDGE = "judge"  # {source, mode, gpu_id, secret_seed, backend, script?}
    CHECK = "check"  # {bench, backend, secret_seed?}
    BYE = "bye"


def package_job(version: str, folder: str, files: dict[str, list[int]]) -> dict[str, Any]:
    return {"op": JobOp.PACKAGE, "version": version, "folder": folder, "files": files}


def judge_job(source: str, mode: str, gpu_id: str | None, secret_seed: int | None,
              backend: str, script: str | None = None) -> dict[str, Any]:
    job: dict[str, Any] = {"op": JobOp.JUDGE, "source": source, "mode": mode, "gpu_id": gpu_id,
                           "secret_seed": secret_seed, "backend": backend}
    if script is not None:
        job["script"] = script
    return job


def check_job(bench: bool, backend: str, secret_seed: int | None = None) -> dict[str, Any]:
    job: dict[str, Any] = {"op": JobOp.CHECK, "bench": bench, "backend": backend}
    if secret_seed is not None:
        job["secret_seed"] = secret_seed
    return job


# The sandbox errors an answer may carry, by name.
ERRORS: dict[str, type[SandboxError]] = {
    cls.__name__: cls
    for cls in (base.SandboxTimeout, base.SandboxDied, base.FrameTooLarge, SandboxError)
}


class RelayError(Exception):
    """The launcher refused a request, or the channel to it broke."""


def exit_to_json(info: SandboxExit | None) -> dict[str, Any] | None:
    return dataclasses.asdict(info) if info is not None else None


def exit_from_json(data: Any) -> SandboxExit | None:
    if not isinstance(data, dict):
        return None
    return SandboxExit(
        exit_code=data.get("exit_code") if type(data.get("exit_code")) is int else None,
        oom_killed=bool(data.get("oom_killed")),
        killed_by_us=bool(data.get("killed_by_us")),
        output_tail=str(data.get("output_tail") or ""),
        output_exceeded=bool(data.get("output_exceeded")),
    )


def spec_to_json(spec: SandboxSpec) -> dict[str, Any]:
    return dataclasses.asdict(spec)


def spec_from_json(data: dict[str, Any]) -> SandboxSpec:
    known = {f.name for f in dataclasses.fields(SandboxSpec)}
    return SandboxSpec(**{k: v for k, v in data.items() if k in known})


# ------------------------------------------------------------------ grader side (confined)


class Channel:
    """The grader process's end: requests with ids answered by a reader thread; jobs from the
    launcher queued for the main loop. Thread-safe (the baseline starts in a thread)."""

    def __init__(self, inp: BinaryIO, out: BinaryIO) -> None:
        self._inp, self._out = inp, out
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: dict[int, Future[tuple[dict[str, Any], bytes]]] = {}
        self._jobs: list[tuple[dict[str, Any], bytes]] = []
        self._jobs_ready = threading.Condition()
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name="relay-reader", daemon=True)
        self._reader.start()

    def emit(self, message: dict[str, Any], blob: bytes = b"") -> None:
        frame = framing.encode_frame(message, blob)
        with self._write_lock:
            self._out.write(frame)
            self._out.flush()

    def request(self, message: dict[str, Any], blob: bytes = b"") -> tuple[dict[str, Any], bytes]:
        rid = next(self._ids)
        future: Future[tuple[dict[str, Any], bytes]] = Future()
        self._waiting[rid] = future
        if self._closed:
            raise RelayError("the launcher went away")
        self.emit({**message, "rid": rid}, blob)
        return future.result()

    def next_job(self) -> tuple[dict[str, Any], bytes] | None:
        """The launcher's next job, or None when it closed the channel."""
        with self._jobs_ready:
            while not self._jobs and not self._closed:
                self._jobs_ready.wait()
            return self._jobs.pop(0) if self._jobs else None

    def _read_loop(self) -> None:
        try:
            while True:
                raw = framing.read_frame(self._inp, MAX_JOB_FRAME_MIB * 1024 * 1024)
                if raw is None:
                    break
                message, blob = framing.decode_frame(raw)
                rid = message.get("re")
                if type(rid) is int:
                    future = self._waiting.pop(rid, None)
                    if future is not None:
                        future.set_result((message, blob))
                    continue
                with self._jobs_ready:
                    self._jobs.append((message, blob))
                    self._jobs_ready.notify()
        except (OSError, framing.FrameError):
            pass
        self._closed = True
        with self._jobs_ready:
            self._jobs_ready.notify_all()
        for future in list(self._waiting.values()):
            if not future.done():
                future.set_exception(RelayError("the launcher went away"))


class RelayBackend(Backend):
    """A Backend whose sandboxes the launcher starts; what the confined grader judges with."""

    def __init__(self, channel: Channel, name: str) -> None:
        self.channel = channel
        self.name = name

    def start(self, spec: SandboxSpec) -> Sandbox:
        return self._start(spec, trusted=False)

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        return self._start(spec, trusted=True)

    def _start(self, spec: SandboxSpec, trusted: bool) -> Sandbox:
        reply, _ = self.channel.request({"rpc": "start", "trusted": trusted, "spec": spec_to_json(spec)})
        _raise_error(reply)
        return RelaySandbox(self.channel, int(reply["box"]), dict(reply.get("environment") or {}))


def _raise_error(reply: dict[str, Any]) -> None:
    error = reply.get("error")
    if error is None:
        return
    if not isinstance(error, dict):
        raise RelayError(str(error))
    kind = ERRORS.get(str(error.get("type")))
    message = str(error.get("message", ""))
    if kind is None:
        raise RelayError(message)
    raise kind(message, exit_from_json(error.get("exit")))


class RelaySandbox(Sandbox):
    def __init__(self, channel: Channel, box: int, environment: dict[str, str]) -> None:
        self._channel = channel
        self._box = box
        self._environment = environment
        self._exit: SandboxExit | None = None
        self._closed = False
        self._processes: int | None = None  # the count that came with the last frame
        self._fresh = False
        # A frame sent and not yet relayed: it goes with the next recv as one "exchange", one
        # trip through the launcher per request instead of two (each trip wakes the grader,
        # the launcher and two attach streams on the timed CPU); any other call sends it first.
        self._unsent: tuple[bytes, str] | None = None  # the frame and its op

    def _request(self, rpc: str, blob: bytes = b"", **fields: Any) -> tuple[dict[str, Any], bytes]:
        reply, data = self._channel.request({"rpc": rpc, "box": self._box, **fields}, blob)
        _raise_error(reply)
        return reply, data

    def _flush(self) -> None:
        if self._unsent is not None:
            (frame, op), self._unsent = self._unsent, None
            self._request("send", frame, op=op)

    def _call(self, rpc: str, blob: bytes = b"", **fields: Any) -> tuple[dict[str, Any], bytes]:
        self._flush()
        return self._request(rpc, blob, **fields)

    def send(self, frame: bytes, op: str = "") -> None:
        self._fresh = False
        self._flush()
        self._unsent = (frame, op)

    def recv(self, timeout_s: float) -> bytes:
        if self._unsent is not None:
            (frame, op), self._unsent = self._unsent, None
            reply, frame = self._request("exchange", frame, timeout_s=float(timeout_s), op=op)
        else:
            reply, frame = self._request("recv", timeout_s=float(timeout_s))
        count = reply.get("processes")
        self._processes, self._fresh = (count if type(count) is int else None), "processes" in reply
        return frame

    def close(self) -> SandboxExit:
        if not self._closed:
            self._closed = True
            try:
                reply, _ = self._call("close")
                self._exit = exit_from_json(reply.get("exit"))
            except (SandboxError, RelayError):
                pass
        return self._exit or SandboxExit(None, False, True, "", False)

    def discard(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._call("discard")
            except (SandboxError, RelayError):
                pass

    @property
    def environment(self) -> dict[str, str]:
        return self._environment

    def quiet(self, on: bool) -> bool:
        return bool(self._call("quiet", on=bool(on))[0].get("value"))

    def cpu_ns(self) -> int | None:
        value = self._call("cpu_ns")[0].get("value")
        return value if type(value) is int else None

    def cpu_stall_us(self) -> int | None:
        value = self._call("cpu_stall_us")[0].get("value")
        return value if type(value) is int else None

    def processes(self) -> int | None:
        """The count read with the last frame when nothing was sent since, else asked for."""
        if self._fresh:
            self._fresh = False
            return self._processes
        value = self._call("processes")[0].get("value")
        return value if type(value) is int else None

"""The grader's side of one sandbox's channel: requests and replies, each reply bounded before
it is parsed and checked before it is believed, and the faults (a timeout, a death, an output
flood, a corrupted channel) that decide a verdict by how the sandbox behaved.

Everything that comes back is hostile: a reply's JSON is sized before parsing, an observation
must have the shape ``wire.execute_call`` gives it, and its texts are cut to the runner's sizes.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass
from typing import Any

from sandbox.grader.contracts import CPU_POLL_S, SLACK_S, STARTUP_TIMEOUT_S, WALL_BACKSTOP, Verdict
from sandbox.host.backends.base import (
    FrameTooLarge,
    Sandbox,
    SandboxDied,
    SandboxError,
    SandboxTimeout,
)
from sandbox.runner import framing, protocol, wire, wire_decode

CHANNEL_MESSAGE = "your code wrote into the judge's channel (or the runner was corrupted)"
# The JSON part of a reply is parsed whole before any node is counted, and a Python object
# per 2 or 3 bytes of JSON ('[],') is ~20 times its size: it is bounded before parsing
# (tensor data travels in the blob, which is not parsed).
MAX_REPLY_JSON = 16 * 1024 * 1024
MAX_REPLY_CONTAINERS = 2 * wire.MAX_NODES



def check_json_part(raw: bytes) -> str:
    """'' when a frame's JSON part may be parsed, else why not (framing's layout: header,
    JSON length, JSON, blob)."""
    start = framing.HEADER.size + framing.JSON_LEN.size
    if len(raw) < start:
        return ""  # decode_frame reports the truncation
    (json_len,) = framing.JSON_LEN.unpack_from(raw, framing.HEADER.size)
    if json_len > MAX_REPLY_JSON:
        return f"a reply of {json_len} bytes of structure (the limit is {MAX_REPLY_JSON})"
    end = start + json_len
    if raw.count(b"[", start, end) + raw.count(b"{", start, end) > MAX_REPLY_CONTAINERS:
        return "a reply of too many values"
    return ""


@dataclass
class Fault(Exception):
    """A verdict decided by how the sandbox behaved rather than by a comparison."""

    verdict: Verdict
    message: str
    fatal: bool = True

    def __str__(self) -> str:
        return f"{self.verdict}: {self.message}"


class Session:
    """One live sandbox as the grader sees it: request/reply with faults mapped to verdicts."""

    def __init__(self, box: Sandbox, limits_output_kib: int) -> None:
        self.box = box
        self.output_cap = limits_output_kib * 1024
        self.printed = 0
        self.last_round_trip_ns = 0
        self.processes_at_hello: int | None = None  # set by await_hello where the box can count

    def request(
        self, message: dict[str, Any], timeout_s: float, what: str = "the test",
        *, cpu_limit_s: float | None = None, **values: Any,
    ) -> tuple[dict[str, Any], bytes]:
        """Send ``message`` and read its reply within ``timeout_s`` of wall-clock time; with
        ``cpu_limit_s``, the limit is the sandbox's CPU time instead where the backend counts
        it (``_await_reply``), and ``timeout_s`` is not used."""
        start = time.perf_counter_ns()
        # Read before the request goes: all the call's CPU time is counted.
        first_cpu = self.box.cpu_ns() if cpu_limit_s is not None else None
        try:
            self.box.send(wire.frame(message, **values), protocol.op_of(message))
            if cpu_limit_s is None or first_cpu is None:
                raw = self.box.recv(timeout_s)
            else:
                raw = self._await_reply(first_cpu, cpu_limit_s, what)
        except SandboxTimeout:
            raise Fault(Verdict.TLE, f"{what} took longer than {timeout_s - SLACK_S:g} s") from None
        except FrameTooLarge:
            raise Fault(Verdict.OLE, "your function returned or printed too much data") from None
        except SandboxDied as exc:
            raise died_fault(exc, what) from None
        except SandboxError:
            raise Fault(Verdict.RE, CHANNEL_MESSAGE) from None
        self.last_round_trip_ns = time.perf_counter_ns() - start
        too_big = check_json_part(raw)
        if too_big:
            raise Fault(Verdict.OLE, f"your function returned too much data: {too_big}")
        try:
            reply, blob = framing.decode_frame(raw)
        except framing.FrameError:
            raise Fault(Verdict.RE, CHANNEL_MESSAGE) from None
        printed = reply.get("printed")
        if type(printed) is not int:
            raise Fault(Verdict.RE, CHANNEL_MESSAGE)
        self.printed = max(self.printed, printed)
        if self.printed > self.output_cap:
            raise Fault(
                Verdict.OLE,
                f"your code printed {self.printed} bytes; the limit is {self.output_cap} bytes",
            )
        if protocol.op_of(message) in protocol.STUDENT_CODE_OPS:
            self._no_strays(what)
        if reply.get("ok") is not True:
            if reply.get("memory"):
                raise Fault(Verdict.MLE, "your code ran out of memory", fatal=False)
            error = str(reply.get("error", ""))[:500]
            raise Fault(Verdict.RE, f"the runner failed inside your process: {error}", fatal=False)
        return reply, blob

    def _await_reply(self, first: int, cpu_limit_s: float, what: str) -> bytes:
        """The reply to a call limited to ``cpu_limit_s`` of the sandbox's CPU time, as the
        kernel counts it (``Sandbox.cpu_ns``, ``first`` read before the call: nothing inside
        can bend it), read every CPU_POLL_S; a call that answers after the limit is a TLE too.
        Waiting for a CPU on a loaded machine costs no CPU time, so it never makes a TLE; a
        call that neither answers nor computes is stopped at WALL_BACKSTOP times the limit of
        wall-clock time. (A backend that cannot count CPU keeps the wall-clock limit.)"""
        limit_ns = cpu_limit_s * 1e9
        backstop_s = cpu_limit_s * WALL_BACKSTOP + SLACK_S
        deadline = time.monotonic() + backstop_s

        def over_cpu() -> Fault | None:
            now = self.box.cpu_ns()
            if now is None or now - first <= limit_ns:
                return None
            return Fault(
                Verdict.TLE,
                f"{what} used more than {cpu_limit_s:g} s of CPU time (the time limit counts "
                "CPU time, not waiting)",
            )

        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Fault(
                    Verdict.TLE,
                    f"{what} did not finish within {backstop_s - SLACK_S:g} s of wall-clock time "
                    f"({WALL_BACKSTOP:g} times its {cpu_limit_s:g} s CPU time limit): code "
                    "that waits (sleep, a lock, input) instead of computing is stopped there",
                )
            try:
                raw = self.box.recv(min(CPU_POLL_S, remaining))
            except SandboxTimeout:
                fault = over_cpu()
                if fault is not None:
                    raise fault from None
                continue
            fault = over_cpu()
            if fault is not None:
                raise fault
            return raw

    def _no_strays(self, what: str) -> None:
        """A submission may not leave processes running after a request (a fork bomb, a
        daemon spinning beside the tests): the sandbox holds more processes than at the
        runner's hello -> RE, and the sandbox goes (fatal), so none outlives the test."""
        if self.processes_at_hello is None:
            return
        now = self.box.processes()
        if now is not None and now > self.processes_at_hello:
            raise Fault(
                Verdict.RE,
                f"your code left {now - self.processes_at_hello} process(es) running after "
                f"{what}: a submission may not start processes (fork, subprocess, "
                "multiprocessing) that outlive its call; they were stopped",
            )

    def value(
        self, reply: dict[str, Any], blob: bytes, key: str, *, keep_class: bool = True
    ) -> Any:
        try:
            return wire_decode.decode(reply.get(key), blob, keep_class=keep_class)
        except wire.WireError:
            raise Fault(Verdict.RE, CHANNEL_MESSAGE) from None


def died_fault(exc: SandboxDied, what: str) -> Fault:
    info = exc.exit
    if info is not None:
        if info.oom_killed:
            return Fault(Verdict.MLE, "your program was killed for using too much memory")
        if info.output_exceeded:
            return Fault(Verdict.OLE, "your program printed more than the output limit")
        code = info.exit_code
        if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            return Fault(Verdict.TLE, "your program used up its CPU time")
        if code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
            return Fault(Verdict.OLE, "your program wrote a file larger than allowed")
        if info.killed_by_us:
            return Fault(Verdict.TLE, "your program ran past the sandbox's wall-clock limit")
        name = _signal_name(code)
        if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"):
            return Fault(
                Verdict.RE,
                f"your program crashed during {what} ({name}, exit status {code}): native code "
                "(ctypes, an extension, a tensor's raw memory) touched memory it must not",
            )
        how = f"killed by {name}, exit status {code}" if name else f"exit status {code}"
        return Fault(
            Verdict.RE,
            f"your program ended during {what} ({how}); "
            "a submission must not exit, kill its process or close the judge's channel",
        )
    return Fault(Verdict.RE, f"your program ended during {what}")


def _signal_name(code: int | None) -> str:
    """The signal an exit status reports (-N from a process, 128+N from a container), or ''."""
    if code is None or code == 0:
        return ""
    number = -code if code < 0 else code - 128 if 128 < code < 128 + 65 else 0
    try:
        return signal.Signals(number).name if number else ""
    except ValueError:
        return ""


def _strs(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def well_formed(obs: Any) -> bool:
    """Whether a decoded observation has the shape wire.execute_call gives it (a forged one
    may not; it must end as RE, never as an internal error or a lucky match)."""
    if type(obs) is not dict:
        return False
    if obs.get("kind") == "raise":
        return all(type(obs.get(k)) is str for k in ("type", "message", "traceback")) and _strs(
            obs.get("mro")
        )
    if obs.get("kind") == "return":
        grads = obs.get("grads")
        return (
            "value" in obs
            and _strs(obs.get("inputs_modified"))
            and (grads is None or type(grads) is list)
        )
    return False


TEXT_LIMITS = {"type": 200, "message": 2000, "traceback": 4000}


def clamped(obs: dict[str, Any]) -> dict[str, Any]:
    """A well-formed observation with its texts cut to what the runner would send: messages
    built from them are stored and shown, and a forged one may hold megabytes."""
    out = dict(obs)
    for key, limit in TEXT_LIMITS.items():
        if key in out:
            out[key] = out[key][:limit]
    if "mro" in out:
        out["mro"] = [name[:200] for name in out["mro"][:64]]
    if "inputs_modified" in out:
        out["inputs_modified"] = [path[:200] for path in out["inputs_modified"][:64]]
    return out


def await_hello(session: Session) -> tuple[dict[str, Any], bytes]:
    """The runner speaks first: wait for its hello frame."""
    try:
        raw = session.box.recv(STARTUP_TIMEOUT_S)
    except SandboxError as exc:
        raise Fault(Verdict.IE, f"no hello from the runner: {exc}") from None
    try:
        msg, blob = framing.decode_frame(raw)
    except framing.FrameError as exc:
        raise Fault(Verdict.IE, f"bad hello: {exc}") from None
    if protocol.op_of(msg) != protocol.Op.HELLO:
        raise Fault(Verdict.IE, "bad hello")
    session.processes_at_hello = session.box.processes()
    return msg, blob

"""The runner's protocol: every op between the trusted grader and the generic runner, one place
for their names and fields (the frames are framing.py's; values travel as wire.py encodes them).

grader -> runner (each answered by one reply carrying ``ok`` and ``printed``):
  ``load {source, functions, language?, bindings?, time_s?}``: exec the submission (or compile
  a .cu one and exec the package's bindings), keep the named functions;
  ``call {fn, grad_wrt, grad_seed, device}`` + values ``args``, ``kwargs``: one observed call;
  ``prepare {which, specs, seed, device}`` then ``time {which, fn, late_seed, key}``: a timed
  call on inputs built inside the sandbox (``time`` may carry the specs itself);
  ``last_output {which}``: the output the last timed call returned;
  ``script {source, keep}``: a scratch run's lines after the submission;
  ``callback_return {raise?}`` + value ``value``: a practice test's answer to a callback;
  ``harness {language, main, student, files, source, sanitize, compile_s, time_s}``: compile a
  practice folder's C++ / CUDA C++ test program with the student's file and run it (harness.py);
  ``bye``: the end (the runner exits; a kept sandbox is told apart by it).
runner -> grader: ``hello {python, torch, ...}`` once, before any request.

Ground floor: the standard library only (the runner imports it inside the sandbox).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Op(StrEnum):
    HELLO = "hello"
    LOAD = "load"
    CALL = "call"
    PREPARE = "prepare"
    TIME = "time"
    LAST_OUTPUT = "last_output"
    SCRIPT = "script"
    CALLBACK_RETURN = "callback_return"
    HARNESS = "harness"
    BYE = "bye"


_OPS = frozenset(op.value for op in Op)
# Requests after which the grader counts the sandbox's processes (the student's code ran).
STUDENT_CODE_OPS = frozenset({Op.LOAD, Op.CALL, Op.SCRIPT, Op.HARNESS})


def op_of(message: dict[str, Any]) -> str:
    """The op a decoded message names ('' when none)."""
    op = message.get("op")
    return op if isinstance(op, str) else ""


def known_op(value: Any) -> str:
    """``value`` when it names an op, else '' (an op a less trusted party states)."""
    return value if isinstance(value, str) and value in _OPS else ""


def hello(**fields: Any) -> dict[str, Any]:
    return {"op": Op.HELLO, **fields}


def load(source: str, functions: list[str], *, language: str = "python", bindings: str = "",
         time_s: float = 10.0, modules: dict[str, str] | None = None) -> dict[str, Any]:
    """A Python file, or (language "cuda") a .cu source compiled in the sandbox and the package's
    bindings.py run with ``launch`` bound (sandbox/runner/cuda_load.py); time_s: each call's;
    modules: files importable beside it (path -> text, sandbox/runner/modules.py)."""
    message: dict[str, Any] = {"op": Op.LOAD, "source": source, "functions": functions}
    if modules:
        message["modules"] = dict(modules)
    if language == "cuda":
        message.update(language="cuda", bindings=bindings, time_s=time_s)
    return message


def call(fn: str, device: str | None, grad_wrt: list[int] | None = None,
         grad_seed: int = 0) -> dict[str, Any]:
    """A call of ``fn``; its ``args`` and ``kwargs`` travel as wire values beside it."""
    return {"op": Op.CALL, "fn": fn, "grad_wrt": list(grad_wrt or []), "grad_seed": grad_seed,
            "device": device}


def prepare(which: str, specs: list[Any], seed: int, device: str) -> dict[str, Any]:
    return {"op": Op.PREPARE, "which": which, "specs": specs, "seed": seed, "device": device}


def time(which: str, fn: str, late_seed: int, key: str) -> dict[str, Any]:
    return {"op": Op.TIME, "which": which, "fn": fn, "late_seed": late_seed, "key": key}


def last_output(which: str) -> dict[str, Any]:
    return {"op": Op.LAST_OUTPUT, "which": which}


def script(source: str, keep: int) -> dict[str, Any]:
    return {"op": Op.SCRIPT, "source": source, "keep": keep}


def callback_return(raised: dict[str, str] | None = None) -> dict[str, Any]:
    """The answer to a callback: its value travels beside it, or ``raise`` {type, message}."""
    message: dict[str, Any] = {"op": Op.CALLBACK_RETURN}
    if raised is not None:
        message["raise"] = raised
    return message


def harness(language: str, main: str, student: str, files: dict[str, str], source: str, *,
            sanitize: str = "", compile_s: float = 60.0, time_s: float = 60.0) -> dict[str, Any]:
    """A practice harness: ``files`` (the test program ``main`` and its headers) and the
    student's ``source`` saved as ``student``, compiled ("cpp" or "cuda") and run."""
    return {"op": Op.HARNESS, "language": language, "main": main, "student": student,
            "files": dict(files), "source": source, "sanitize": sanitize,
            "compile_s": compile_s, "time_s": time_s}


def bye() -> dict[str, Any]:
    return {"op": Op.BYE}

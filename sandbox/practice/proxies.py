"""The proxies of a practice problem (the kind's judging is sandbox/grader/kinds/practice.py): the
test functions run in the TRUSTED grader; the student's names are proxies whose calls cross the
channel to the sandbox.

The test.py of the package is executed here, in the grader's process, with two modules given to
its imports: ``checker`` (sandbox/practice/checker.py) and ``solution``, a proxy module. Every
call of a proxy is one ``call`` request to the generic runner, which calls a function of the
harness appended to the student's file (sandbox/runner/practice_shim.py); arguments and results travel
through the wire codec (tensors, numpy arrays, scalars, lists, tuples, dicts). So the student's
process holds the inputs of the moment and nothing else: never the test source, the reference,
or an expected value. An exception the student's code raises comes back as an exception of the
same built-in class (``raises(ValueError)`` works: student_errors.py); instances of the student's classes stay in
the sandbox and are driven through handles (stateful objects, closures, generators).

What a proxy cannot do directly, and how it is done:

- a function of the test passed to the student's code (a lambda, a helper) or assigned to
  ``solution.<name>`` (a helper that must not be called, a spy that counts calls): a
  **callback**. The function stays in the grader; the student's module gets a stand-in whose
  calls send a ``callback`` frame and wait; the grader runs the function on the values it was
  given and answers with its value or its exception (as the built-in exception class it derives
  from). Calls the function makes of the student's code (a spy calling the original) are
  served meanwhile. An exception of the test's function is raised again to the test when the
  student's call ends, even if the student's code caught it. The import's static scan reports
  these tests (``unsupported``, action ``fallback``);
- what the channel cannot carry (a set, a generator of the test, a function's return value that
  is not data) ends the test as unsupported: reported, and refused by the import's check;
- arguments modified in place by the student's code are not carried back to the test.

Verdicts per test: returned AC; AssertionError WA; the student's exception RE (its traceback,
trimmed to the student's frames), whatever its name or base (a student's class named ``Skip``
is RE: only the checker's own ``Skip``, raised by the test's code, skips, and SK never makes an
AC alone: sandbox/grader/contracts.py, ``overall_verdict``); faults of the sandbox (TLE, MLE, a crash) as in
sandbox/grader/judging.py, a fatal one skipping the rest. Per test, ``limits.time_s`` bounds all the
calls it makes together.
"""

from __future__ import annotations

import builtins
import importlib.util
import logging
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from sandbox.grader.compare import is_memory_error
from sandbox.grader.contracts import (
    SLACK_S,
    Verdict,
)
from sandbox.grader.session import (
    CHANNEL_MESSAGE,
    Fault,
    Session,
    clamped,
    well_formed,
)
from sandbox.practice.student_errors import TESTS_FILENAME, builtin_base, student_exception
from sandbox.runner import protocol, wire, wire_decode

log = logging.getLogger(__name__)


SHIM_FUNCTIONS = (
    "__pj_call", "__pj_call_saved", "__pj_get", "__pj_invoke", "__pj_attr", "__pj_setattr", "__pj_iter",
    "__pj_next", "__pj_len", "__pj_item", "__pj_restore", "__pj_set", "__pj_module_get",
    "__pj_module_set", "__pj_repr",
)
HANDLE_KEY = "__practice_handle__"
GLOBAL_KEY = "__practice_global__"
CALLBACK_KEY = "__practice_callback__"


def shim_source() -> str:
    """The harness appended to the student's file (after a blank line, so their line numbers
    stay theirs)."""
    spec = importlib.util.find_spec("sandbox.runner.practice_shim")  # read, never imported here
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).read_text(encoding="utf-8")


class Abort(BaseException):  # noqa: N818 - not an Exception: a test's `except Exception` must not catch it
    """A fault of the sandbox ended the call: the test stops, the fault decides its verdict."""


class ProxyUnsupported(BaseException):  # noqa: N818
    """The test asked a proxy for something it cannot do; the test is reported unsupported."""


class Remote:
    """The channel to the student's file for one judging, with the current test's deadline.

    A function of the test handed to the student's code (a lambda argument, a replacement of
    ``solution.<name>``) is a callback: the student's call sends a ``callback`` frame, the grader
    runs the function on the values it was given and answers ``callback_return``; calls the
    function makes of the student's code (a spy calling the original) are nested requests."""

    def __init__(self, session: Session, device: str) -> None:
        self.session = session
        self.device = device
        self.deadline = 0.0
        self.fault: Fault | None = None
        self.dead = False
        self.patches: set[str] = set()  # names of solution the current test has replaced
        self.callbacks: dict[int, Callable[..., Any]] = {}
        self.depth = 0
        self.raised: BaseException | None = None  # what a callback raised, for the test
        self.test_name = ""
        self.callback_tests: list[str] = []  # the tests that handed a function over

    def call(self, fn: str, *args: Any) -> Any:
        """Call the harness function ``fn`` in the sandbox; its result decoded, its
        exception re-raised here, a fault as Abort."""
        if self.dead:
            raise Abort()
        outgoing = [_outgoing(a, self) for a in args]
        self.depth += 1
        try:
            reply, blob = self._request(
                protocol.call(fn, self.device),
                args=outgoing, kwargs={},
            )
            while "callback" in reply:
                reply, blob = self._callback(reply, blob)
        finally:
            self.depth -= 1
        try:
            obs = wire_decode.decode(reply.get("obs"), blob, numpy=True)
        except wire.WireError:
            self._fault(Fault(Verdict.RE, CHANNEL_MESSAGE))
        if not well_formed(obs):
            self._fault(Fault(Verdict.RE, CHANNEL_MESSAGE))
        obs = clamped(obs)
        if self.depth == 0 and self.raised is not None:
            # A function of the test raised inside the student's call (a helper that must not
            # be called): the test sees it raise, whether or not the student's code caught it.
            raised, self.raised = self.raised, None
            raise raised
        if obs["kind"] == "raise":
            if is_memory_error(obs):
                self._fault(Fault(Verdict.MLE, "your code ran out of memory", fatal=False))
            raise student_exception(obs)
        return self.incoming(obs["value"])

    def _request(self, message: dict[str, Any], **values: Any) -> tuple[dict[str, Any], bytes]:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self._fault(Fault(Verdict.TLE, f"test {self.test_name} ran out of time"))
        try:
            return self.session.request(message, left + SLACK_S, f"test {self.test_name}", **values)
        except Fault as fault:
            if fault.verdict == Verdict.TLE:
                fault = Fault(Verdict.TLE, fault.message, fatal=True)
            self._fault(fault)

    def _callback(self, reply: dict[str, Any], blob: bytes) -> tuple[dict[str, Any], bytes]:
        """Run the test's function a callback frame names; answer with its value or exception."""
        ident = reply.get("callback")
        fn = self.callbacks.get(ident) if type(ident) is int else None
        try:
            args = wire_decode.decode(reply.get("args"), blob, numpy=True)
            kwargs = wire_decode.decode(reply.get("kwargs"), blob, numpy=True)
        except wire.WireError:
            self._fault(Fault(Verdict.RE, CHANNEL_MESSAGE))
        if fn is None or type(args) is not list or type(kwargs) is not dict:
            self._fault(Fault(Verdict.RE, CHANNEL_MESSAGE))
        try:
            value = fn(*self.incoming(args), **self.incoming(kwargs))
            answer = protocol.callback_return()
            try:
                values = {"value": _outgoing(value, self)}
            except ProxyUnsupported as exc:
                raise ProxyUnsupported(f"a function of the test returned to the student's code what "
                                       f"the channel does not carry ({exc})") from None
        except Abort:
            self.dead = True  # the student's call waits for an answer it will never get
            raise
        except BaseException as exc:  # noqa: BLE001 - the test's function raised: tell the student's code
            # (ProxyUnsupported too: what it returned cannot cross, e.g. a generator of a test's own
            # gpusim kernel; the student's call ends, the test is reported, the channel lives on)
            if self.raised is None:
                self.raised = exc
            answer = protocol.callback_return(
                {"type": builtin_base(type(exc)).__name__, "message": str(exc)[:2000]})
            values = {}
        return self._request(answer, **values)

    def _fault(self, fault: Fault) -> NoReturn:
        self.fault = fault
        if fault.fatal:
            self.dead = True
        raise Abort()

    def incoming(self, value: Any) -> Any:
        kind = type(value)
        if kind is list:
            return [self.incoming(v) for v in value]
        if kind is tuple:
            return tuple(self.incoming(v) for v in value)
        if kind is dict:
            if HANDLE_KEY in value and type(value[HANDLE_KEY]) is int:
                return ObjectProxy(self, value[HANDLE_KEY], bool(value.get("callable")),
                                   str(value.get("type", "object"))[:100])
            if GLOBAL_KEY in value and isinstance(value[GLOBAL_KEY], str):
                return GlobalProxy(self, value[GLOBAL_KEY], bool(value.get("class")))
            return {k: self.incoming(v) for k, v in value.items()}
        return value


def _outgoing(value: Any, remote: Remote, depth: int = 0) -> Any:
    """A test's argument as the wire carries it; proxies become references, functions of the
    test callbacks; what cannot cross the channel is ProxyUnsupported."""
    if depth > 40:
        raise ProxyUnsupported("an argument nested too deeply")
    kind = type(value)
    if isinstance(value, ObjectProxy):
        return {HANDLE_KEY: object.__getattribute__(value, "_handle")}
    if isinstance(value, GlobalProxy):
        return {GLOBAL_KEY: value.__name__}
    if kind is list:
        return [_outgoing(v, remote, depth + 1) for v in value]
    if kind is tuple:
        return tuple(_outgoing(v, remote, depth + 1) for v in value)
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise ProxyUnsupported("a dict argument with keys that are not strings")
        return {k: _outgoing(v, remote, depth + 1) for k, v in value.items()}
    if value is None or kind in (bool, int, float, str):
        return value
    module = str(getattr(kind, "__module__", "") or "")
    if module == "torch" or module.startswith("torch."):
        import torch  # noqa: PLC0415

        if isinstance(value, torch.Tensor | torch.dtype):
            return value
    if module == "numpy" or module.startswith("numpy."):
        return value
    if isinstance(value, type) and str(value.__module__).startswith("numpy"):
        import numpy as np  # noqa: PLC0415

        return np.dtype(value)  # np.float32 as a dtype argument
    if callable(value):
        ident = len(remote.callbacks) + 1
        remote.callbacks[ident] = value
        if remote.test_name not in remote.callback_tests:
            remote.callback_tests.append(remote.test_name)
        return {CALLBACK_KEY: ident}
    raise ProxyUnsupported(f"the test passes a {kind.__name__}, which the channel does not carry")


class GlobalProxy:
    """A function or class of the student's module, called in the sandbox by name."""

    def __init__(self, remote: Remote, name: str, is_class: bool) -> None:
        self._remote = remote
        self.__name__ = self.__qualname__ = name
        self.is_class = is_class

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # While a test has this name replaced, the proxy it kept still means the student's own.
        fn = "__pj_call_saved" if self.__name__ in self._remote.patches else "__pj_call"
        return self._remote.call(fn, self.__name__, list(args), kwargs)

    def __getitem__(self, key: Any) -> Any:  # a gpusim kernel's launch: kernel[grid, block]
        return self._remote.call("__pj_item", self.__name__, key)

    def __repr__(self) -> str:
        return f"<student's {'class' if self.is_class else 'function'} {self.__name__}>"


class ObjectProxy:
    """An object kept in the sandbox (an instance of the student's class, a closure, an
    iterator): attribute reads, calls and iteration are requests."""

    def __init__(self, remote: Remote, handle: int, is_callable: bool, type_name: str) -> None:
        object.__setattr__(self, "_remote", remote)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_callable", is_callable)
        object.__setattr__(self, "_type", type_name)

    def _call(self, fn: str, *args: Any) -> Any:
        remote: Remote = object.__getattribute__(self, "_remote")
        return remote.call(fn, object.__getattribute__(self, "_handle"), *args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._call("__pj_attr", name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._call("__pj_setattr", name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("__pj_invoke", list(args), kwargs)

    def __iter__(self) -> Any:
        return self._call("__pj_iter")

    def __next__(self) -> Any:
        return self._call("__pj_next")

    def __len__(self) -> int:
        return int(self._call("__pj_len"))

    def __getitem__(self, key: Any) -> Any:
        return self._call("__pj_item", key)

    def __repr__(self) -> str:
        try:  # its own repr, from the sandbox (what a test's message shows of it)
            return str(self._call("__pj_repr"))
        except Exception:  # noqa: BLE001 - a repr that raises is shown by its type
            return f"<student's {object.__getattribute__(self, '_type')} object>"


class SolutionModule(ModuleType):
    """The ``solution`` module a test imports: every attribute is looked up in the sandbox;
    assigning one runs the stub fallback (a function of the test) or sets data there."""

    def __init__(self, remote: Remote) -> None:
        super().__init__("solution")
        object.__setattr__(self, "_remote", remote)
        object.__setattr__(self, "_globals", {})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        cache: dict[str, Any] = object.__getattribute__(self, "_globals")
        if name in cache:
            return cache[name]
        remote: Remote = object.__getattribute__(self, "_remote")
        try:
            value = remote.call("__pj_get", name)
        except AttributeError as exc:
            raise AttributeError(f"module 'solution' has no attribute {name!r} ({exc})") from None
        if isinstance(value, GlobalProxy):
            cache[name] = value
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        remote: Remote = object.__getattribute__(self, "_remote")
        if isinstance(value, GlobalProxy) and value.__name__ == name:
            remote.patches.discard(name)
            remote.call("__pj_restore", name)
            return
        remote.call("__pj_set", name, value)  # a function of the test becomes a callback
        remote.patches.add(name)


# ---------------------------------------------------------------- running the tests


def load_tests(
    source: str, checker: ModuleType, solution: ModuleType, modules: dict[str, ModuleType] | None = None
) -> dict[str, Any]:
    """Execute test.py in a namespace whose imports of ``checker`` and ``solution`` get ours, and
    of a name of ``modules`` (the package's runtime: runtime_proxy.py) that module."""
    given = dict(modules or {})
    real_import = builtins.__import__

    def hooked(
        name: str,
        globals_: Any = None,
        locals_: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> Any:
        if level == 0 and name == "solution":
            return solution
        if level == 0 and name == "checker":
            return checker
        if level == 0 and name in given:
            return given[name]
        return real_import(name, globals_, locals_, fromlist, level)

    own_builtins = dict(vars(builtins))
    own_builtins["__import__"] = hooked
    namespace: dict[str, Any] = {
        "__name__": "practice_tests",
        "__file__": TESTS_FILENAME,
        "__builtins__": own_builtins,
    }
    exec(compile(source, TESTS_FILENAME, "exec"), namespace)  # noqa: S102 - trusted test.py
    return namespace

"""Judging a practice problem (sandbox/practice.py): the test functions run in the TRUSTED
grader; the student's names are proxies whose calls cross the channel to the sandbox.

The test.py of the package is executed here, in the grader's process, with two modules given to
its imports: ``checker`` (sandbox/practice_checker.py) and ``solution``, a proxy module. Every
call of a proxy is one ``call`` request to the generic runner, which calls a function of the
harness appended to the student's file (sandbox/practice_shim.py); arguments and results travel
through the wire codec (tensors, numpy arrays, scalars, lists, tuples, dicts). So the student's
process holds the inputs of the moment and nothing else: never the test source, the reference,
or an expected value. An exception the student's code raises comes back as an exception of the
same built-in class (``raises(ValueError)`` works); instances of the student's classes stay in
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
AC alone: sandbox/contracts.py, ``overall_verdict``); faults of the sandbox (TLE, MLE, a crash) as in
sandbox/grader.py, a fatal one skipping the rest. Per test, ``limits.time_s`` bounds all the
calls it makes together.
"""

from __future__ import annotations

import asyncio
import builtins
import inspect
import logging
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from sandbox import practice, wire
from sandbox.backends.base import Backend, SandboxSpec
from sandbox.compare import is_memory_error
from sandbox.contracts import (
    NOTHING_JUDGED,
    JudgeResult,
    Mode,
    TestResult,
    Verdict,
    WrongKind,
    overall_verdict,
)
from sandbox.feedback import for_student
from sandbox.practice_checker import Skip, make_checker
from sandbox.problem import ProblemPackage
from sandbox.session import (
    CHANNEL_MESSAGE,
    IMPORT_TIMEOUT_S,
    MAX_SOURCE_BYTES,
    SLACK_S,
    STARTUP_TIMEOUT_S,
    Fault,
    Session,
    await_hello,
    clamped,
    import_limit_s,
    well_formed,
)

log = logging.getLogger(__name__)


SHIM_FUNCTIONS = (
    "__pj_call", "__pj_call_saved", "__pj_get", "__pj_invoke", "__pj_attr", "__pj_setattr", "__pj_iter",
    "__pj_next", "__pj_len", "__pj_item", "__pj_restore", "__pj_set",
)
HANDLE_KEY = "__practice_handle__"
GLOBAL_KEY = "__practice_global__"
CALLBACK_KEY = "__practice_callback__"
TESTS_FILENAME = "tests.py"


def shim_source() -> str:
    """The harness appended to the student's file (after a blank line, so their line numbers
    stay theirs)."""
    return (Path(__file__).with_name("practice_shim.py")).read_text(encoding="utf-8")


class _Abort(BaseException):  # noqa: N818 - not an Exception: a test's `except Exception` must not catch it
    """A fault of the sandbox ended the call: the test stops, the fault decides its verdict."""


class ProxyUnsupported(BaseException):  # noqa: N818
    """The test asked a proxy for something it cannot do; the test is reported unsupported."""


class _Remote:
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
        exception re-raised here, a fault as _Abort."""
        if self.dead:
            raise _Abort()
        outgoing = [_outgoing(a, self) for a in args]
        self.depth += 1
        try:
            reply, blob = self._request(
                {"op": "call", "fn": fn, "grad_wrt": [], "grad_seed": 0, "device": self.device},
                args=outgoing, kwargs={},
            )
            while "callback" in reply:
                reply, blob = self._callback(reply, blob)
        finally:
            self.depth -= 1
        try:
            obs = wire.decode(reply.get("obs"), blob, numpy=True)
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
            args = wire.decode(reply.get("args"), blob, numpy=True)
            kwargs = wire.decode(reply.get("kwargs"), blob, numpy=True)
        except wire.WireError:
            self._fault(Fault(Verdict.RE, CHANNEL_MESSAGE))
        if fn is None or type(args) is not list or type(kwargs) is not dict:
            self._fault(Fault(Verdict.RE, CHANNEL_MESSAGE))
        try:
            value = fn(*self.incoming(args), **self.incoming(kwargs))
            answer: dict[str, Any] = {"op": "callback_return"}
            values = {"value": _outgoing(value, self)}
        except (_Abort, ProxyUnsupported):
            self.dead = True  # the student's call waits for an answer it will never get
            raise
        except BaseException as exc:  # noqa: BLE001 - the test's function raised: tell the student's code
            if self.raised is None:
                self.raised = exc
            answer = {"op": "callback_return",
                      "raise": {"type": _builtin_base(type(exc)).__name__, "message": str(exc)[:2000]}}
            values = {}
        return self._request(answer, **values)

    def _fault(self, fault: Fault) -> NoReturn:
        self.fault = fault
        if fault.fatal:
            self.dead = True
        raise _Abort()

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


def _builtin_base(cls: type[BaseException]) -> type[BaseException]:
    """The first of Python's own exception classes in ``cls``'s MRO (Exception at least)."""
    for base in cls.__mro__:
        if getattr(builtins, base.__name__, None) is base and issubclass(base, Exception):
            return base
    return Exception


_EXCEPTION_CLASSES: dict[tuple[str, type], type[BaseException]] = {}


def student_exception(obs: dict[str, Any]) -> BaseException:
    """An exception standing for the one the student's code raised: of a class named like
    theirs, derived from the first of Python's own exceptions in its MRO (so ``raises`` and
    ``except ValueError`` in a test behave as with the real one). ``_practice_obs`` keeps the
    observation (its traceback is the student's)."""
    name = str(obs["type"]).rsplit(".", 1)[-1] or "Exception"
    base: type[BaseException] = Exception
    for candidate in obs.get("mro", []):
        found = getattr(builtins, str(candidate), None)
        if isinstance(found, type) and issubclass(found, BaseException):
            base = found
            break
    if base in (KeyboardInterrupt, SystemExit, GeneratorExit, BaseException):
        base = Exception
    key = (name, base)
    cls = _EXCEPTION_CLASSES.get(key)
    if cls is None:
        if name == base.__name__:
            cls = base
        else:
            try:
                cls = type(name, (base,), {"__module__": "solution"})
            except TypeError:
                cls = base
        _EXCEPTION_CLASSES[key] = cls
    try:
        exc = cls(str(obs.get("message", "")))
    except Exception:  # noqa: BLE001 - an exception class with another signature
        exc = Exception(str(obs.get("message", "")))
    exc._practice_obs = obs  # type: ignore[attr-defined]
    return exc


def _outgoing(value: Any, remote: _Remote, depth: int = 0) -> Any:
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

    def __init__(self, remote: _Remote, name: str, is_class: bool) -> None:
        self._remote = remote
        self.__name__ = self.__qualname__ = name
        self.is_class = is_class

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # While a test has this name replaced, the proxy it kept still means the student's own.
        fn = "__pj_call_saved" if self.__name__ in self._remote.patches else "__pj_call"
        return self._remote.call(fn, self.__name__, list(args), kwargs)

    def __repr__(self) -> str:
        return f"<student's {'class' if self.is_class else 'function'} {self.__name__}>"


class ObjectProxy:
    """An object kept in the sandbox (an instance of the student's class, a closure, an
    iterator): attribute reads, calls and iteration are requests."""

    def __init__(self, remote: _Remote, handle: int, is_callable: bool, type_name: str) -> None:
        object.__setattr__(self, "_remote", remote)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_callable", is_callable)
        object.__setattr__(self, "_type", type_name)

    def _call(self, fn: str, *args: Any) -> Any:
        remote: _Remote = object.__getattribute__(self, "_remote")
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
        return f"<student's {object.__getattribute__(self, '_type')} object>"


class SolutionModule(ModuleType):
    """The ``solution`` module a test imports: every attribute is looked up in the sandbox;
    assigning one runs the stub fallback (a function of the test) or sets data there."""

    def __init__(self, remote: _Remote) -> None:
        super().__init__("solution")
        object.__setattr__(self, "_remote", remote)
        object.__setattr__(self, "_globals", {})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        cache: dict[str, Any] = object.__getattribute__(self, "_globals")
        if name in cache:
            return cache[name]
        remote: _Remote = object.__getattribute__(self, "_remote")
        try:
            value = remote.call("__pj_get", name)
        except AttributeError as exc:
            raise AttributeError(f"module 'solution' has no attribute {name!r} ({exc})") from None
        if isinstance(value, GlobalProxy):
            cache[name] = value
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        remote: _Remote = object.__getattribute__(self, "_remote")
        if isinstance(value, GlobalProxy) and value.__name__ == name:
            remote.patches.discard(name)
            remote.call("__pj_restore", name)
            return
        remote.call("__pj_set", name, value)  # a function of the test becomes a callback
        remote.patches.add(name)


# ---------------------------------------------------------------- running the tests


def _load_tests(source: str, checker: ModuleType, solution: ModuleType) -> dict[str, Any]:
    """Execute test.py in a namespace whose imports of ``checker`` and ``solution`` get ours."""
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


def _bare_assert_text(exc: BaseException, source_lines: list[str]) -> str:
    """For an assert without a message: the failing line of the test."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == TESTS_FILENAME and frame.lineno:
            line = source_lines[frame.lineno - 1].strip() if frame.lineno <= len(source_lines) else ""
            return f"assertion failed: {line}"
    return "assertion failed"


def _student_traceback(obs: dict[str, Any]) -> str:
    """The student's traceback without the harness's frames."""
    lines = str(obs.get("traceback", "")).splitlines()
    out: list[str] = []
    skip_next = False
    for line in lines:
        if skip_next:
            skip_next = False
            continue
        if line.strip().startswith("File ") and (", in __pj_" in line or ", in pj_" in line):
            skip_next = True
            continue
        out.append(line)
    return "\n".join(out)


class _PracticeJudging:
    def __init__(
        self,
        package: ProblemPackage,
        source: str,
        mode: Mode,
        on_progress: Callable[[TestResult], None] | None,
        env: dict[str, Any],
    ) -> None:
        self.package, self.source, self.mode = package, source, mode
        self.on_progress, self.env = on_progress, env
        self.settings = practice.settings_of(package.manifest)
        refused = practice.refused_tests(package.manifest)
        public = set(self.settings.get("public", []))
        self.cases = [
            (name, name in public)
            for name in self.settings.get("tests", [])
            if name not in refused and (name in public or mode == Mode.SUBMIT)
        ]
        self.results: list[TestResult] = []
        self.unsupported: list[dict[str, str]] = []
        self.remote: _Remote | None = None

    def result(self, verdict: Verdict, message: str = "") -> JudgeResult:
        if verdict == Verdict.IE and not message:
            message = NOTHING_JUDGED
        if self.unsupported:
            self.env["practice_unsupported"] = self.unsupported
        if self.remote is not None and self.remote.callback_tests:
            self.env["practice_callbacks"] = list(self.remote.callback_tests)
        return JudgeResult(verdict, self.results, None, self.env, message, self.package.version)

    def report(self, result: TestResult) -> None:
        shown = for_student(result, self.package.feedback_hidden)
        self.results.append(shown)
        if self.on_progress is not None:
            self.on_progress(shown)

    def skip_rest(self, start: int, why: str) -> None:
        for name, public in self.cases[start:]:
            self.report(TestResult(name, public, Verdict.SK, why))

    def load(self, session: Session) -> JudgeResult | None:
        functions = [*SHIM_FUNCTIONS, *self.package.functions]
        source = self.source.rstrip("\n") + "\n\n\n" + shim_source()
        try:
            reply, _ = session.request(
                {"op": "load", "source": source, "functions": functions},
                import_limit_s(self.package.limits.time_s,
                               list(self.package.manifest.get("requires", []))) + SLACK_S,
                "the import of your file",
            )
        except Fault as fault:
            self.skip_rest(0, "skipped: your file could not be loaded")
            verdict = Verdict.CE if fault.verdict == Verdict.RE and not fault.fatal else fault.verdict
            return self.result(verdict, fault.message)
        status = reply.get("status")
        if status == "ok":
            return None
        self.skip_rest(0, "skipped: compilation error")
        if status == "missing":
            missing = [str(m) for m in reply.get("missing", []) if str(m) not in SHIM_FUNCTIONS]
            return self.result(Verdict.CE, f"your file must define: {', '.join(missing)}")
        raw = reply.get("error")
        error = clamped(raw) if isinstance(raw, dict) and well_formed(raw) else {}
        if is_memory_error(error):
            return self.result(Verdict.MLE, "your file ran out of memory while being imported")
        text = str(error.get("traceback") or error.get("message") or "")
        return self.result(Verdict.CE, f"your file failed to import:\n{text}")

    def run(self, session: Session) -> JudgeResult:
        try:
            hello, _ = await_hello(session)
        except Fault as fault:
            return self.result(Verdict.IE, f"the sandbox did not start: {fault.message}")
        for key in ("python", "torch", "device", "cpu", "cuda"):
            if key in hello:
                self.env[key] = hello[key]
        device = str(hello.get("device", "cpu"))
        loaded = self.load(session)
        if loaded is not None:
            return loaded
        remote = _Remote(session, "cuda" if device.startswith("cuda") and self.package.device != "cpu" else "cpu")
        self.remote = remote
        solution = SolutionModule(remote)
        checker = make_checker(device)
        source = (self.package.path / TESTS_FILENAME).read_text(encoding="utf-8")
        remote.test_name = "import"
        remote.deadline = time.monotonic() + self.package.limits.time_s
        try:
            namespace = _load_tests(source, checker, solution)
        except _Abort:
            failed = remote.fault or Fault(Verdict.IE, "the tests could not start")
            self.skip_rest(0, "skipped: the tests could not start")
            return self.result(failed.verdict, failed.message)
        except ImportError as exc:
            if exc.name != "solution":  # a module the tests need is missing: ours
                self.skip_rest(0, "skipped: internal error")
                return self.result(Verdict.IE, f"the problem's tests failed to load: {exc}")
            self.skip_rest(0, "skipped: compilation error")
            return self.result(Verdict.CE, f"the tests need a name your file does not define: {exc}")
        except BaseException as exc:  # noqa: BLE001 - the package's test.py: ours, not the student's
            log.exception("practice tests of %s failed to load", self.package.path)
            self.skip_rest(0, "skipped: internal error")
            return self.result(Verdict.IE, f"the problem's tests failed to load: {type(exc).__name__}: {exc}")
        lines = source.splitlines()
        for index, (name, public) in enumerate(self.cases):
            fn = namespace.get(name)
            if not callable(fn):
                return self.result(Verdict.IE, f"the problem's test {name} is missing")
            remote.test_name = name
            result = self.run_test(remote, fn, name, public, lines)
            self.report(result)
            if remote.dead:
                self.skip_rest(index + 1, "skipped: an earlier test ended your program")
                return self.result(overall_verdict(self.results))
        try:
            session.request({"op": "bye"}, 2.0, "shutdown")
        except Fault:
            pass
        return self.result(overall_verdict(self.results))

    def run_test(
        self, remote: _Remote, fn: Callable[[], Any], name: str, public: bool, lines: list[str]
    ) -> TestResult:
        remote.fault = None
        remote.raised = None
        remote.deadline = time.monotonic() + self.package.limits.time_s
        start = time.perf_counter()

        def done(verdict: Verdict, message: str = "", **extra: Any) -> TestResult:
            took = (time.perf_counter() - start) * 1000
            return TestResult(name, public, verdict, message, time_ms=round(took, 3), **extra)

        try:
            outcome = fn()
            if inspect.isawaitable(outcome):
                asyncio.run(_await(outcome))
        except _Abort:
            fault = remote.fault or Fault(Verdict.IE, "the channel failed")
            return done(fault.verdict, fault.message)
        except ProxyUnsupported as exc:
            self.unsupported.append({"test": name, "reason": str(exc)})
            return done(Verdict.SK, f"not judged here: {exc}")
        except AssertionError as exc:
            message = str(exc) or _bare_assert_text(exc, lines)
            obs = getattr(exc, "_practice_obs", None)
            details = {"traceback": _student_traceback(obs)} if obs else {}
            return done(Verdict.WA, message, wrong_kind=WrongKind.VALUE, details=details)
        except Exception as exc:  # noqa: BLE001 - the student's exception, or the test's on their value
            obs = getattr(exc, "_practice_obs", None)
            if obs is None and isinstance(exc, Skip):  # the checker's own, raised by the test
                return done(Verdict.SK, f"skipped: {exc}")
            if obs is not None:
                trace = _student_traceback(obs)
                return done(
                    Verdict.RE,
                    f"your code raised {obs['type']}: {obs['message']}",
                    details={"exception": str(obs["type"]), "traceback": trace},
                )
            return done(
                Verdict.RE,
                f"the test failed on what your code returned: {type(exc).__name__}: {exc}",
                details={"exception": type(exc).__name__},
            )
        return done(Verdict.AC)


async def _await(awaitable: Any) -> Any:
    return await awaitable


def judge_practice(
    package: ProblemPackage,
    source: str,
    *,
    mode: Mode,
    backend: Backend,
    secret_seed: int | None = None,
    on_progress: Callable[[TestResult], None] | None = None,
    gpu_id: str | None = None,
    labels: dict[str, str] | None = None,
    kernels_root: Path | None = None,
) -> JudgeResult:
    """judge() for a package of the kind ``practice`` (same contract as sandbox.grader.judge;
    the inputs are the tests' own, so ``secret_seed`` and ``kernels_root`` are unused)."""
    del secret_seed, kernels_root
    env: dict[str, Any] = {"backend": backend.name, "kind": practice.KIND}
    if len(source.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        return JudgeResult(
            Verdict.CE, [], None, env, f"the file is larger than {MAX_SOURCE_BYTES} bytes",
            package.version,
        )
    judging = _PracticeJudging(package, source, mode, on_progress, env)
    limits = package.limits
    spec = SandboxSpec(
        memory_mib=limits.memory_mib,
        pids=limits.pids,
        tmpfs_mib=limits.tmpfs_mib,
        output_kib=limits.output_kib,
        wall_time_s=STARTUP_TIMEOUT_S + IMPORT_TIMEOUT_S + len(judging.cases) * (limits.time_s + 2) + 30,
        gpu_id=gpu_id,
        labels=labels or {},
    )
    try:
        box = backend.start(spec)
    except Exception as exc:  # noqa: BLE001
        log.exception("sandbox start failed")
        return JudgeResult(Verdict.IE, [], None, env, f"sandbox failed to start: {exc}", package.version)
    try:
        with box:
            env.update(box.environment)
            return judging.run(Session(box, limits.output_kib))
    except Exception as exc:  # noqa: BLE001
        log.exception("internal error while judging a practice problem")
        return JudgeResult(
            Verdict.IE, judging.results, None, env, f"internal error: {exc}", package.version
        )

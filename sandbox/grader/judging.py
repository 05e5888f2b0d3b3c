"""The one judging loop: every problem kind goes through ``judge``.

The loop owns what every kind shares, so a verdict rule is written once: the size check, the
sandbox's spec and start, the runner's hello, the import of the student's file and its verdict
(CE, MLE), the tests in order with progress, the fatal-fault rule (a fault that ended the
program skips the rest: SK), the judging's verdict (``contracts.overall_verdict``), the
goodbye, the removal of every sandbox, and IE for faults of ours.

A kind (a :class:`Kind` in the registry ``KINDS``, keyed by ``problem.toml``'s ``kind``;
``tensor`` by default) supplies what differs: its cases, how it loads the author's code, what
it sends with the student's file, how it runs one case, and what it does after the tests (the
tensor kind benchmarks a Submit). Adding a kind is one new module in sandbox/grader/kinds/.
"""

from __future__ import annotations

import abc
import contextlib
import logging
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from sandbox.grader.compare import is_memory_error
from sandbox.grader.contracts import (
    CPU_EMULATION_NOTE,
    CUDA_COMPILE_S,
    MAX_SOURCE_BYTES,
    NOTHING_JUDGED,
    STARTUP_TIMEOUT_S,
    BenchmarkResult,
    JudgeResult,
    Mode,
    TestResult,
    Verdict,
    import_limit_s,
    load_wait_s,
    overall_verdict,
    scratch_refusal,
)
from sandbox.grader.package import ProblemPackage
from sandbox.grader.session import Fault, Session, await_hello, clamped, well_formed
from sandbox.host.backends.base import Backend, SandboxSpec
from sandbox.runner import protocol

log = logging.getLogger(__name__)

HELLO_KEYS = ("python", "torch", "triton", "device", "cpu", "cuda")


class PrepareError(Exception):
    """A kind could not prepare its judging: IE with exactly this message."""


@dataclass
class Judging:
    """One judging's state, shared by the loop and its kind."""

    package: ProblemPackage
    source: str
    mode: Mode
    backend: Backend
    env: dict[str, Any]
    secret_seed: int | None = None
    gpu_id: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    kernels_root: Path | None = None
    expected_cache: dict[tuple[str, int], dict[str, Any]] | None = None
    on_progress: Callable[[TestResult], None] | None = None
    device: str = "cpu"  # where the student's calls run: "cuda" for a GPU problem on a GPU
    results: list[TestResult] = field(default_factory=list)
    script: str = ""  # a scratch run's script (Mode.SCRATCH: the kind "scratch" runs it)
    output: str | None = None  # a scratch run's output ("" until its script has printed)

    def report(self, result: TestResult) -> None:
        """Keep a test's full result (hidden details included) and pass it on as progress.
        What a student may see of it is filtered where it is shown (feedback.for_student)."""
        self.results.append(result)
        if self.on_progress is not None:
            self.on_progress(result)


class Kind(abc.ABC):
    """What one problem kind does differently; see the module docstring."""

    name: ClassVar[str]

    def __init__(self, judging: Judging) -> None:
        self.judging = judging

    def environment(self) -> dict[str, Any]:
        """Recorded with every result of this kind, before anything runs."""
        return {}

    def prepare(self) -> None:  # noqa: B027 - optional: a kind may need nothing loaded
        """Load what the kind needs of the package (author's code); raising is IE."""

    @abc.abstractmethod
    def cases(self) -> list[tuple[str, bool]]:
        """The selected cases, in order: (name, public)."""

    def wall_time_s(self) -> float:
        """The sandbox's hard wall-clock limit beyond start-up and import."""
        limits = self.judging.package.limits
        compile_s = CUDA_COMPILE_S if self.judging.package.language == "cuda" else 0.0
        return len(self.cases()) * (limits.time_s + 2) + 30 + compile_s

    def sanitized(self) -> bool:
        """The student's code runs under sanitizers (no address-space cap: they reserve a lot)."""
        return self.judging.package.language == "cuda" and self.judging.gpu_id is None

    def emulated(self) -> bool:
        """Judged on the CPU by the CUDA emulation: the result says so (correctness only)."""
        return self.judging.package.language == "cuda" and self.judging.device == "cpu"

    @contextlib.contextmanager
    def beside(self, spec: SandboxSpec) -> Iterator[None]:
        """Held while the student's sandbox (``spec``) lives: the tensor kind's baseline."""
        yield

    def load_request(self) -> tuple[str, list[str]]:
        """The file the runner loads as the submission, and the names it must define."""
        return self.judging.source, list(self.judging.package.functions)

    def load_language(self) -> str:
        """What the runner loads load_request's file as ("cuda" compiles it, protocol.load); a
        practice harness package's C++ / CUDA file is compiled with its test program instead."""
        package = self.judging.package
        return "python" if package.harness else package.language

    def load_modules(self) -> dict[str, str]:
        """Files importable beside the student's file in the sandbox (path -> text)."""
        return {}

    def reported_missing(self, missing: list[str]) -> list[str]:
        """The missing names the student is told of."""
        return missing

    def start(self, session: Session, hello: dict[str, Any]) -> JudgeResult | None:
        """After the student's file loaded: a result ends the judging here."""
        return None

    @abc.abstractmethod
    def run_case(self, session: Session, index: int) -> TestResult:
        """Judge one case; a Fault for what ended it (the loop reports it)."""

    def program_ended(self) -> bool:
        """True when the student's program can take no more tests (beyond fatal Faults)."""
        return False

    def after_tests(self, session: Session) -> tuple[BenchmarkResult | None, str]:
        """After every test passed: (a benchmark, a judging-level IE message or "")."""
        return None, ""

    def finish(self) -> None:  # noqa: B027 - optional
        """Before the result is built: add what the kind learned to ``judging.env``."""


KINDS: dict[str, type[Kind]] = {}


def register(cls: type[Kind]) -> type[Kind]:
    KINDS[cls.name] = cls
    return cls


def judge(
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
    expected_cache: dict[tuple[str, int], dict[str, Any]] | None = None,
    script: str = "",
) -> JudgeResult:
    """Judge ``source`` against ``package``: public tests for Run; all tests, then what the
    kind does after them (a benchmark), for Submit; for Scratch, whatever the package's kind,
    the kind "scratch" runs ``script`` beside the file (no test, no reference: its result's
    ``output`` is what the script printed). Never raises for the student's faults;
    our own faults give an IE result. Callers use ``sandbox.grader.entry.judge``, which registers
    the built-in kinds first.

    The result is complete (hidden tests' details, the ``secret_seed``, drawn here unless
    given): what a student sees of it is filtered where it is shown (feedback.for_student)."""
    if secret_seed is None:
        secret_seed = secrets.randbits(63)
    judging = Judging(
        package, source, mode, backend, {"backend": backend.name}, secret_seed, gpu_id,
        dict(labels or {}), kernels_root, expected_cache, on_progress,
    )
    name = package.kind
    if mode == Mode.SCRATCH:
        name, judging.script, judging.output = "scratch", script, ""
        # A practice package whose tests are a C++ program: its file is not Python (the site
        # and the commands refuse such a scratch run before it is queued; this is the grader's
        # own word for one that got here anyway).
        refused = scratch_refusal(package.harness)
        if refused:
            return _result(judging, Verdict.CE, refused)
    elif name == "scratch":  # a mode of every problem, never a package's own kind
        name = "scratch (a mode, not a problem kind)"
    try:
        kind = KINDS[name](judging)
    except KeyError:
        return _result(judging, Verdict.IE, f"unknown problem kind {name!r}")
    judging.env.update(kind.environment())
    if len(source.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        return _result(judging, Verdict.CE, f"the file is larger than {MAX_SOURCE_BYTES} bytes")
    try:
        kind.prepare()
    except PrepareError as exc:
        return _result(judging, Verdict.IE, str(exc))
    except Exception as exc:  # noqa: BLE001 - the package's own code: ours, not the student's
        log.exception("cannot load package %s", package.path)
        return _result(judging, Verdict.IE, f"problem package failed to load: {exc}")
    limits = package.limits
    requires = package.requires
    spec = SandboxSpec(
        memory_mib=limits.memory_mib,
        pids=limits.pids,
        tmpfs_mib=limits.tmpfs_mib,
        output_kib=limits.output_kib,
        wall_time_s=STARTUP_TIMEOUT_S + import_limit_s(limits.time_s, requires) + kind.wall_time_s(),
        gpu_id=gpu_id,
        labels=judging.labels,
        sanitizers=kind.sanitized(),
    )
    try:
        box = backend.start(spec)
    except Exception as exc:  # noqa: BLE001
        log.exception("sandbox start failed")
        return _result(judging, Verdict.IE, f"sandbox failed to start: {exc}")
    try:
        with box, kind.beside(spec):
            judging.env.update(box.environment)
            return _run(kind, Session(box, limits.output_kib))
    except Exception as exc:  # noqa: BLE001
        log.exception("internal error while judging")
        kind.finish()
        return _result(judging, Verdict.IE, f"internal error: {exc}")


def _result(judging: Judging, verdict: Verdict, message: str = "",
            benchmark: BenchmarkResult | None = None) -> JudgeResult:
    if verdict == Verdict.IE and not message:
        message = NOTHING_JUDGED
    return JudgeResult(verdict, judging.results, benchmark, judging.env, message,
                       judging.package.version, judging.secret_seed, judging.output)


def _skip_rest(kind: Kind, start: int, why: str) -> None:
    for name, public in kind.cases()[start:]:
        kind.judging.report(TestResult(name, public, Verdict.SK, why))


def _run(kind: Kind, session: Session) -> JudgeResult:
    judging = kind.judging
    try:
        hello, _ = await_hello(session)
    except Fault as fault:
        return _result(judging, Verdict.IE, f"the sandbox did not start: {fault.message}")
    for key in HELLO_KEYS:
        if key in hello:
            judging.env[key] = hello[key]
    # A GPU problem runs on the GPU when the sandbox has one, else on the CPU (Triton's
    # interpreter, or a CPU-only development machine).
    has_cuda = str(hello.get("device", "")).startswith("cuda")
    judging.device = "cuda" if judging.package.device != "cpu" and has_cuda else "cpu"
    loaded = _load(kind, session)
    if loaded is not None:
        return loaded
    started = kind.start(session, hello)
    if started is not None:
        return started
    for index, (name, public) in enumerate(kind.cases()):
        try:
            judging.report(kind.run_case(session, index))
        except Fault as fault:
            judging.report(TestResult(name, public, fault.verdict, fault.message))
            if fault.fatal:
                _skip_rest(kind, index + 1, "skipped: an earlier test ended your program")
                kind.finish()
                return _result(judging, overall_verdict(judging.results))
        if kind.program_ended():
            _skip_rest(kind, index + 1, "skipped: an earlier test ended your program")
            kind.finish()
            return _result(judging, overall_verdict(judging.results))
    benchmark: BenchmarkResult | None = None
    if judging.mode == Mode.SUBMIT and overall_verdict(judging.results) == Verdict.AC:
        benchmark, failed = kind.after_tests(session)
        if failed:
            kind.finish()
            return _result(judging, Verdict.IE, failed)
    goodbye(session)
    kind.finish()
    return _result(judging, overall_verdict(judging.results),
                   CPU_EMULATION_NOTE if kind.emulated() else "",
                   benchmark=benchmark)


def goodbye(session: Session) -> None:
    try:
        session.request(protocol.bye(), 2.0, "shutdown")
    except Fault:
        pass


def _load(kind: Kind, session: Session) -> JudgeResult | None:
    """Import the student's file; a result (CE, MLE, a fault's verdict) when it failed."""
    judging = kind.judging
    limits = judging.package.limits
    source, functions = kind.load_request()
    requires = judging.package.requires
    language = kind.load_language()
    cuda = language == "cuda"
    try:
        reply, _ = session.request(
            protocol.load(source, functions, language=language,
                          bindings=judging.package.bindings, time_s=limits.time_s,
                          modules=kind.load_modules()),
            load_wait_s(limits.time_s, requires, language),
            "the compilation of your file" if cuda else "the import of your file",
        )
    except Fault as fault:
        _skip_rest(kind, 0, "skipped: your file could not be loaded")
        verdict = Verdict.CE if fault.verdict == Verdict.RE and not fault.fatal else fault.verdict
        return _result(judging, verdict, fault.message)
    status = reply.get("status")
    if status == "ok":
        return None
    _skip_rest(kind, 0, "skipped: compilation error")
    if status == "compile":  # a CUDA source the compiler refused (or stopped): its own lines
        raw = reply.get("error")
        log = str(raw.get("message", "")) if isinstance(raw, dict) else ""
        return _result(judging, Verdict.CE, f"your file did not compile:\n{log[:16000]}")
    if status == "missing":
        missing = kind.reported_missing([str(m) for m in reply.get("missing", [])])
        return _result(judging, Verdict.CE, f"your file must define: {', '.join(missing)}")
    raw_error = reply.get("error")
    error = clamped(raw_error) if isinstance(raw_error, dict) and well_formed(raw_error) else {}
    if is_memory_error(error):
        return _result(judging, Verdict.MLE, "your file ran out of memory while being imported")
    text = str(error.get("traceback") or error.get("message") or "")
    return _result(judging, Verdict.CE, f"your file failed to import:\n{text}")


def skip_all(kind: Kind, why: str) -> None:
    """Mark every case skipped (a judging that ends before its tests)."""
    _skip_rest(kind, 0, why)


def result_of(kind: Kind, verdict: Verdict, message: str = "") -> JudgeResult:
    """A judging-level result built by a kind (e.g. the tests could not start)."""
    kind.finish()
    return _result(kind.judging, verdict, message)

"""The judging contracts: verdicts, limits and results, as enums and frozen dataclasses.

These are the shapes every other part agrees on: the grader produces them, the site stores
them (``JudgeResult.to_json()``), ``manage.py judge --json`` prints them. Times carry their
unit in the field name.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any


class Verdict(enum.StrEnum):
    """One verdict per test and one for the whole judging (the first non-AC test's)."""

    AC = "AC"  # accepted
    WA = "WA"  # wrong answer; see WrongKind for the subtype
    TLE = "TLE"  # time limit exceeded
    MLE = "MLE"  # memory limit exceeded
    OLE = "OLE"  # output limit exceeded
    RE = "RE"  # runtime error in the student's code
    CE = "CE"  # the file does not compile or import, or lacks a required function
    IE = "IE"  # internal error: ours, never the student's fault
    SK = "SK"  # test not run because an earlier fault ended the sandbox (per test only)


# The one table of verdict words. ``label``: the verdict's name (lists, badges, the site's
# choices); ``says``: what a student is told in a sentence (feedback, the terminal, the
# live page's status line). The site and progress.js read them from here.
VERDICT_TEXT: dict[Verdict, tuple[str, str]] = {
    Verdict.AC: ("Accepted", "accepted"),
    Verdict.WA: ("Wrong answer", "wrong answer"),
    Verdict.TLE: ("Time limit exceeded", "time limit exceeded"),
    Verdict.MLE: ("Memory limit exceeded", "memory limit exceeded"),
    Verdict.OLE: ("Output limit exceeded", "output limit exceeded"),
    Verdict.RE: ("Runtime error", "runtime error"),
    Verdict.CE: ("Compilation error", "compilation error"),
    Verdict.IE: ("Internal error", "internal error (ours, not yours)"),
    Verdict.SK: ("Skipped", "skipped: an earlier test ended your program"),
}
VERDICT_LABELS: dict[Verdict, str] = {v: label for v, (label, _) in VERDICT_TEXT.items()}
VERDICT_WORDS: dict[Verdict, str] = {v: says for v, (_, says) in VERDICT_TEXT.items()}


class WrongKind(enum.StrEnum):
    """Why a WA is a WA."""

    SHAPE = "shape"
    DTYPE = "dtype"
    VALUE = "value"
    NAN = "nan"  # NaN/Inf where the expected has none (or vice versa)
    TYPE = "type"  # wrong Python type / container structure / tensor subclass
    RAISED = "raised"  # raised where the reference returned
    DID_NOT_RAISE = "did_not_raise"  # returned where the reference raised
    WRONG_EXCEPTION = "wrong_exception"
    INPUTS_MODIFIED = "inputs_modified"
    GRAD = "grad"  # gradient differs


class Mode(enum.StrEnum):
    RUN = "run"  # public tests only, no benchmark
    SUBMIT = "submit"  # all tests, hidden included, then the benchmark
    # the student's file plus a script of their own, no test at all (sandbox/grader/kinds/scratch.py)
    SCRATCH = "scratch"


# What a scratch run keeps of its script's prints (characters); a longer output is cut here,
# with SCRATCH_CUT_NOTE after it.
SCRATCH_OUTPUT_CHARS = 16 * 1024
SCRATCH_CUT_NOTE = (
    "\n[output truncated: the first {kept} of {printed} characters printed are shown; "
    "print less (a tensor's shape, a slice, a sum) to see the rest]"
)


def scratch_refusal(harness: str) -> str:
    """Why a scratch run is refused on a problem whose tests are a program (``harness``: a
    practice package's "cpp" or "cuda"), or "" where the scratchpad runs: it runs Python lines
    beside the student's file, and such a problem's file is C++ compiled into its test program."""
    if not harness:
        return ""
    language = "CUDA C++" if harness == "cuda" else "C++"
    return (f"the scratchpad runs Python lines beside a Python file; this problem's file is "
            f"{language}, compiled with its test program: use Run to see what each case says")


class FeedbackPolicy(enum.StrEnum):
    """How much a hidden test tells the student."""

    VERDICT = "verdict"  # the verdict only
    CATEGORY = "category"  # verdict and a short category (e.g. "WA: dtype")
    FULL = "full"  # everything a public test would say


# Timeouts of the channel to a sandbox (sandbox/grader/session.py uses them; the launcher bounds a
# confined grader's requests by them: sandbox/host/confined.py).
STARTUP_TIMEOUT_S = 120.0  # runner start-up: interpreter + torch import
SLACK_S = 0.5  # added to the per-test limit for the channel round trip
MAX_SOURCE_BYTES = 512 * 1024  # a submission larger than this is CE before any sandbox starts
IMPORT_TIMEOUT_S = 20.0  # importing the student's file where the problem requires Triton
MIN_IMPORT_S = 2.0  # the least any import gets (the runner has imported torch already)
# A CUDA load compiles (the emulator's core object, then the source: sandbox/runner/cuda_load.py
# stops each after its limit) before the bindings import.
CUDA_COMPILE_S = 125.0
HARNESS_COMPILE_S = 60.0  # a practice test program's compile limit in the sandbox (a CE past it)
# A test's time limit is CPU time where the backend counts its sandbox's CPU from outside
# (Sandbox.cpu_ns: the container's cgroup, the local runner's /proc entry), as DMOJ and
# DOMjudge do: a loaded machine slows a call's wall clock, not its CPU time, so load never
# turns correct code into TLE. A call that neither answers nor computes (it sleeps, it waits
# for a lock) is stopped by the wall-clock backstop, WALL_BACKSTOP times the limit.
WALL_BACKSTOP = 3.0
CPU_POLL_S = 0.25  # how often the sandbox's CPU time is read while a call runs


# A CUDA submission judged without a GPU (sandbox/runner/cuda_load.py's emulation): the result's
# message; no benchmark, ranked nowhere.
CPU_EMULATION_NOTE = "checked on CPU by emulation: correctness only, no speed"


def import_limit_s(time_s: float, requires: Collection[str]) -> float:
    """How long the student's file may take to import: the problem's time limit (torch is
    imported by the runner before any file is loaded, so a file that spins or forks at import
    is stopped after the time limit, not after 20 s); a problem that requires Triton, whose
    import and first compile are slow, keeps IMPORT_TIMEOUT_S."""
    if "triton" in requires:
        return max(time_s, IMPORT_TIMEOUT_S)
    return max(time_s, MIN_IMPORT_S)


def load_wait_s(time_s: float, requires: Collection[str], language: str) -> float:
    """How long the grader waits for the load's reply: the import, and a CUDA file's compile."""
    return import_limit_s(time_s, requires) + SLACK_S + (CUDA_COMPILE_S if language == "cuda" else 0.0)


def program_wait_s(time_s: float) -> float:
    """How long the grader waits for a practice test program's reply: its compile and its run."""
    return HARNESS_COMPILE_S + time_s + 2 * SLACK_S + 10


@dataclass(frozen=True)
class Limits:
    time_s: float = 10.0  # per test: CPU time of the sandbox (wall clock where not counted)
    memory_mib: int = 1024  # memory+swap of the whole sandbox
    output_kib: int = 64  # what the student's code may print
    pids: int = 512  # processes + threads
    tmpfs_mib: int = 64  # /tmp inside the sandbox


@dataclass(frozen=True)
class TestResult:
    name: str
    public: bool
    verdict: Verdict
    message: str = ""  # the full message; a hidden test's is filtered when shown (feedback.py)
    wrong_kind: WrongKind | None = None
    time_ms: float | None = None  # host wall clock of the probe round trip
    details: dict[str, Any] = field(default_factory=dict)  # worst element, counts, traceback
    # A public test's wrong tensor, expected beside actual (sandbox/grader/compare_view.py); never
    # a hidden test's. In the JSON only when there is one: every other key stays as it was.
    compare: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["verdict"] = str(self.verdict)
        data["wrong_kind"] = str(self.wrong_kind) if self.wrong_kind else None
        if self.compare is None:
            del data["compare"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestResult:
        """The inverse of ``to_json`` (what the site stored); unknown keys are ignored."""
        kind = data.get("wrong_kind")
        return cls(
            name=str(data["name"]),
            public=bool(data.get("public", False)),
            verdict=Verdict(data["verdict"]),
            message=str(data.get("message") or ""),
            wrong_kind=WrongKind(kind) if kind else None,
            time_ms=data.get("time_ms"),
            details=dict(data.get("details") or {}),
            compare=data["compare"] if isinstance(data.get("compare"), dict) else None,
        )


class Trust(enum.StrEnum):
    """How far the grader believes a benchmark's times (sandbox/bench/trust.py)."""

    VERIFIED = "verified"  # every check held: the times are the sandboxes' own
    CHARGED = "charged"  # believed, with time spent outside the clock added to the submission's
    # The times passed every check, but the timed sandboxes waited for a CPU beyond the quiet
    # rule's bound while they were taken (a busy machine): shown, and said so, never "verified"
    CONTENDED = "contended"
    REJECTED = "rejected"  # not believed: the submission's time is the grader's own round trip

    @classmethod
    def worst(cls, values: list[Trust]) -> Trust:
        order = [cls.VERIFIED, cls.CHARGED, cls.CONTENDED, cls.REJECTED]
        return max(values, key=order.index, default=cls.VERIFIED)


CONTENDED_NOTE = (
    "timed while the machine was busy ({why}): the figures passed every check but are not "
    "verified; Submit again when the judge is quieter for a verified timing"
)


def contended(bench: BenchmarkResult, why: str) -> BenchmarkResult:
    """``bench`` said plainly to be timed on a busy machine (``why``: what the quiet rule saw),
    when its times were otherwise believed; a rejected timing stays rejected."""
    if bench.trust not in (Trust.VERIFIED, Trust.CHARGED):
        return bench
    note = CONTENDED_NOTE.format(why=why)
    return replace(
        bench, trust=Trust.CONTENDED,
        rule="; ".join(r for r in (bench.rule, "contended") if r),
        note=f"{bench.note}; {note}" if bench.note else note,
    )


# What a student reads of a rejected timing (sandbox/bench/trust.py's rules that reject, by
# name): why, in plain words, and what to do next. The rule's own message has the figures.
REJECTED_BECAUSE: dict[str, str] = {
    "time_within_round_trip": "your code reported a time longer than the judge measured around "
    "the call: the clock it timed itself with was not the real one",
    "time_above_floor": "your code reported a time shorter than any call can take",
    "gap_excess": "your timed calls took longer than the times they reported: work was done "
    "outside the timed call (after it returned, or around its clock)",
    "prepare_excess": "building the inputs of your timed calls took far longer than the "
    "baseline's: work was done ahead, while the inputs were prepared, so the timed call only "
    "handed back a result",
    "faster_than_light": "your reported time is below the shape's speed of light: no machine "
    "moves its bytes and does its arithmetic that fast",
}
REJECTED_NEXT = (
    "A rejected timing has no speedup and no rank. Resubmit: a machine busy beyond its CPUs "
    "can cause this once. If it repeats, do all of the work inside the timed call itself "
    "(nothing while its inputs are built, nothing still running after it returns, no clock "
    "of your own)."
)


def rejected_because(rule: str) -> list[str]:
    """The plain reasons for the rejecting rules named in a benchmark's ``rule`` (one name,
    names joined by "+" within a shape or by "; " across shapes); a generic one when none is
    known (a result stored before the names)."""
    names = [name.strip() for part in rule.split(";") for name in part.split("+")]
    found = [REJECTED_BECAUSE[name] for name in dict.fromkeys(names) if name in REJECTED_BECAUSE]
    return found or ["the judge could not believe the times your code reported"]


def unbelieved(entry: Any) -> Any:
    """A shape's entry of ``BenchmarkResult.shapes`` with the submission's figures dropped (a
    rejected timing); anything but a dict as it is (a malformed stored result)."""
    if not isinstance(entry, dict):
        return entry
    return {**entry, "submission_ms": None, "speedup": None, "sol_fraction": None}


@dataclass(frozen=True)
class BenchmarkResult:
    # baseline_ms / submission_ms; > 1 means faster than the baseline. None when the timing
    # was rejected: a time that is not believed gives no figure (nor ``submission_ms``, nor a
    # shape's ``speedup`` or ``sol_fraction``), and ranks nowhere.
    speedup: float | None
    submission_ms: float | None  # median; None when rejected
    baseline_ms: float  # median
    submission_spread: float = 0.0  # relative half-width of the middle 50%, e.g. 0.03
    baseline_spread: float = 0.0
    repetitions: int = 0
    shape: str = ""  # which benchmark shape (name)
    trust: Trust = Trust.VERIFIED
    rule: str = ""  # the trust rule(s) that charged or rejected the timing, by name
    note: str = ""  # why, in words (and per-shape figures when several shapes are combined)
    # one object per shape: name, submission_ms, baseline_ms, speedup, sol_ms, sol_fraction
    # (sol_ms / submission_ms), bound ("memory" | "compute"), bytes and flops (the shape's
    # cost model, evaluated: the roofline reads them); the sol and cost keys are None for a
    # shape without a cost model or a machine without measured limits; submission_ms, speedup
    # and sol_fraction are None in a rejected timing
    shapes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        """Timed outputs re-checked and times believed (charged included): the old flag. A
        contended timing is shown but never said to be verified (issue 41)."""
        return self.trust in (Trust.VERIFIED, Trust.CHARGED)

    def to_json(self) -> dict[str, Any]:
        """Every field, ``trust`` as its value, and the derived ``verified`` flag (kept for
        readers of the JSON from before ``trust``)."""
        data = asdict(self)
        data["trust"] = str(self.trust)
        data["verified"] = self.verified
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BenchmarkResult:
        """The inverse of ``to_json``; keys this version does not know are ignored. A result
        stored before ``trust`` existed has only ``verified`` (False: rejected)."""
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        if "trust" in values:
            values["trust"] = Trust(values["trust"])
        elif data.get("verified") is False:
            values["trust"] = Trust.REJECTED
        return cls(**values)


@dataclass(frozen=True)
class JudgeResult:
    verdict: Verdict
    tests: list[TestResult]
    benchmark: BenchmarkResult | None
    environment: dict[str, Any]
    message: str = ""  # a judging-level message (compile error, internal error)
    problem_version: str = ""
    # The judging's secret seed (mixed into the hidden tests' inputs): with it a failure can be
    # reproduced. A secret: never in ``to_json`` unless asked for, never shown to a student.
    secret_seed: int | None = None
    # A scratch run's output (what its script printed, cut at SCRATCH_OUTPUT_CHARS with a note,
    # then its traceback); None for Run and Submit, whose JSON never has the key.
    output: str | None = None

    @property
    def shown_verdict(self) -> str | None:
        """The verdict as shown: a scratch run that ran to its end has none (None), only its
        errors have one; Run and Submit always have theirs."""
        if self.output is not None and self.verdict == Verdict.AC:
            return None
        return str(self.verdict)

    def to_json(self, with_seed: bool = False) -> dict[str, Any]:
        """The exact shape of ``manage.py judge --json`` (extra keys allowed, none removed);
        ``with_seed`` adds ``secret_seed`` (between the grader and the worker only). A scratch
        run adds ``output``, and its verdict is null when its script ran to its end."""
        data: dict[str, Any] = {
            "verdict": self.shown_verdict,
            "tests": [t.to_json() for t in self.tests],
            "benchmark": self.benchmark.to_json() if self.benchmark else None,
            "environment": self.environment,
            "message": self.message,
            "problem_version": self.problem_version,
        }
        if with_seed:
            data["secret_seed"] = self.secret_seed
        if self.output is not None:
            data["output"] = self.output
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JudgeResult:
        """The inverse of ``to_json``: read a stored result back typed."""
        bench = data.get("benchmark")
        seed = data.get("secret_seed")
        output = data.get("output")
        return cls(
            # null: a scratch run (it has an output) whose script ran to its end
            verdict=Verdict.AC if data["verdict"] is None and isinstance(output, str)
            else Verdict(data["verdict"]),
            tests=[TestResult.from_json(t) for t in data.get("tests") or []],
            benchmark=BenchmarkResult.from_json(bench) if bench else None,
            environment=dict(data.get("environment") or {}),
            message=str(data.get("message") or ""),
            problem_version=str(data.get("problem_version") or ""),
            secret_seed=seed if type(seed) is int else None,
            output=output if isinstance(output, str) else None,
        )


# The one rule table of what a test's verdict counts for, shared by every problem kind (only the
# grader writes a test's verdict: an exception of the student's code is RE or WA, never SK).
# SK is neutral: a test the package's own code skipped (a practice test's ``skip()``), or one
# not run after a fault that ended the program (that fault's verdict decides the judging).
PASSING_VERDICTS = frozenset({Verdict.AC})
NEUTRAL_VERDICTS = frozenset({Verdict.SK})
NOTHING_JUDGED = "no test could be judged here: every test was skipped"


def overall_verdict(tests: list[TestResult]) -> Verdict:
    """The judging's verdict: the first test that neither passed nor was skipped; else AC when
    at least one test passed (or there were none); a judging whose every test was skipped
    judged nothing, which is ours (IE), never a free AC."""
    for test in tests:
        if test.verdict not in PASSING_VERDICTS | NEUTRAL_VERDICTS:
            return test.verdict
    if tests and not any(test.verdict in PASSING_VERDICTS for test in tests):
        return Verdict.IE
    return Verdict.AC

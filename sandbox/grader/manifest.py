"""problem.toml's fields, each read and checked in this one place (the package's schema: kind,
requires, limits, feedback, hints, tolerances, benchmark, language; the loader is package.py).
The loader calls these once at load, so that a ``ProblemPackage`` holds typed values and
nothing else reads the dict; the site calls the same functions on a manifest stored in the
database (``Problem.manifest``: hints, the feedback policy, requirements, the language, the
benchmark's cost tables). A malformed field is a :class:`PackageError` naming the file and the
field. The ``[practice]`` table of a practice package is read by sandbox/practice/package.py.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.grader.contracts import FeedbackPolicy, Limits
from sandbox.grader.cost import CostError, CostModel, parse_cost
from sandbox.grader.statement_cases import StatementCase, parse_statement_cases

Manifest = Mapping[str, Any]  # problem.toml as parsed (or as the site stored it)


class PackageError(Exception):
    """A problem package is malformed; the message names the file and the field."""


# The kinds a package may declare (``kind``; sandbox/grader/kinds/ holds their strategies; the
# kind "scratch" is a mode of every problem, never a package's own). None declared: "tensor".
PROBLEM_KINDS = ("tensor", "practice")
DEVICES = ("cpu", "gpu", "any")  # where a problem is judged (not given: cpu) or a shape timed


def kind_of(manifest: Manifest, where: Path | str = "problem.toml") -> str:
    return choice_of(manifest, "kind", PROBLEM_KINDS, where)


def choice_of(manifest: Manifest, key: str, choices: tuple[str, ...], where: Path | str) -> str:
    """A top-level field naming one of ``choices``; the first when it is not given."""
    raw = manifest.get(key, choices[0])
    if raw not in choices:
        raise PackageError(f"{where}: `{key}` must be one of {', '.join(choices)}, not {raw!r}")
    return str(raw)


_MISSING: Any = object()


def field_of(manifest: Manifest, key: str, kind: type, where: Path | str, default: Any = _MISSING) -> Any:
    """A top-level field of type ``kind`` (a list: of strings), required unless given a default."""
    value = manifest.get(key, default)
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok or (kind is list and not all(isinstance(v, str) for v in value)):
        wanted = {int: "an integer", str: "a string", list: "a list of names"}[kind]
        got = "missing" if value is _MISSING else f"not {value!r}"
        raise PackageError(f"{where}: `{key}` must be {wanted} ({got})")
    return list(value) if kind is list else value


def statement_cases_of(manifest: Manifest, where: Path | str) -> tuple[StatementCase, ...] | None:
    """[[statement_cases]]: statement sentences and the cases proving them (None: no table)."""
    try:
        return parse_statement_cases(manifest.get("statement_cases"))
    except ValueError as exc:
        raise PackageError(f"{where}: {exc}") from None


def requires_of(manifest: Manifest, where: Path | str = "problem.toml") -> tuple[str, ...]:
    """The modules the sandbox must import beyond torch (``requires = ["triton"]``)."""
    raw = manifest.get("requires")
    if raw is None:
        return ()
    if not (isinstance(raw, list) and all(isinstance(r, str) and r.strip() for r in raw)):
        raise PackageError(f"{where}: `requires` must be a list of module names "
                           f"(requires = [\"triton\"]), not {raw!r}")
    return tuple(r.strip() for r in raw)


def language_of(manifest: Manifest) -> str:
    """What the student writes, for a manifest the site stored (the editor's mode):
    ``language`` (python, cpp, cuda; checked at load by package.py); a C++ / CUDA C++ practice
    problem imported before packages had a language says so in its ``[practice] harness`` only;
    "python" when neither. Lenient, like :func:`shape_figures`: a stored manifest is not checked
    again."""
    return str(manifest.get("language") or harness_of(manifest) or "python")


def harness_of(manifest: Manifest) -> str:
    """A practice problem whose tests are a program (its ``[practice] harness``: "cpp" or
    "cuda"), for a manifest the site stored; "" for any other problem. Lenient."""
    practice = manifest.get("practice")
    harness = practice.get("harness") if isinstance(practice, dict) else ""
    return harness if isinstance(harness, str) else ""


# What a package may ask for: a limit is a number within these bounds (inclusive), never 0
# (0 would mean "no limit" to the sandbox's memory cap) nor one past what a worker can give.
LIMIT_BOUNDS: dict[str, tuple[type, float, float]] = {
    "time_s": (float, 0.1, 120.0),  # per test; the judging task's own limit is 300 s
    "memory_mib": (int, 128, 65536),  # torch alone needs about 100 MiB
    "output_kib": (int, 1, 16384),
}


def limits_of(manifest: Manifest, where: Path | str = "problem.toml") -> Limits:
    """The [limits] table, each value a number within LIMIT_BOUNDS, or PackageError."""
    raw = manifest.get("limits", {})
    if not isinstance(raw, dict):
        raise PackageError(
            f"{where}: `limits` must be a table ([limits] with time_s, memory_mib, output_kib), "
            f"not {type(raw).__name__}"
        )
    unknown = sorted(set(raw) - set(LIMIT_BOUNDS))
    if unknown:
        raise PackageError(
            f"{where}: unknown limit {unknown[0]!r} (known: {', '.join(LIMIT_BOUNDS)})"
        )
    values: dict[str, Any] = {}
    for key, (kind, low, high) in LIMIT_BOUNDS.items():
        value = raw.get(key, getattr(Limits, key))
        number_ok = isinstance(value, int | float) and not isinstance(value, bool)
        if kind is int and isinstance(value, float) and value.is_integer():
            value = int(value)
        if not number_ok or (kind is int and not isinstance(value, int)):
            wanted = "an integer" if kind is int else "a number"
            raise PackageError(f"{where}: limits.{key} must be {wanted}, not {value!r}")
        if not low <= value <= high:  # also refuses NaN
            raise PackageError(
                f"{where}: limits.{key} = {value!r} is out of bounds: from {low:g} to {high:g}"
                + (" (0 is not 'no limit': every judging has a memory cap)"
                   if key == "memory_mib" and value == 0 else "")
            )
        values[key] = kind(value)
    return Limits(**values)


def stated_limits(manifest: Manifest) -> dict[str, int | float]:
    """The limits a manifest the site stored states itself (the problem page shows these, as
    written; a limit not stated is the runner's default and is not shown). Lenient, like
    :func:`language_of`: a value that is not a number, or a table that is not one, is left out,
    never checked again."""
    raw = manifest.get("limits")
    table = raw if isinstance(raw, dict) else {}
    return {key: value for key, value in table.items()
            if key in LIMIT_BOUNDS and _number(value)}


def feedback_of(manifest: Manifest, where: Path | str = "problem.toml") -> FeedbackPolicy:
    """The policy for hidden tests (``[feedback] hidden``; "category" when not given)."""
    raw = manifest.get("feedback")
    if raw is None:
        return FeedbackPolicy.CATEGORY
    hidden = raw.get("hidden", "category") if isinstance(raw, dict) else None
    if hidden not in tuple(FeedbackPolicy):
        raise PackageError(f"{where}: feedback.hidden must be one of "
                           f"{', '.join(FeedbackPolicy)}, not {hidden!r}")
    return FeedbackPolicy(hidden)


# ---------------------------------------------------------------- [hints]

DEFAULT_AFTER = 2
DEFAULT_COOLDOWN_S = 120
MAX_HINT_CHARS = 600


@dataclass(frozen=True)
class Ladder:
    check: str  # "case_name", "fn:<function>" or "tag:<tag>"
    hints: tuple[str, ...]


@dataclass(frozen=True)
class HintSpec:
    """The [hints] table; how the ladders are climbed is sandbox/grader/hints.py's."""

    enabled: bool = True
    after: int = DEFAULT_AFTER
    cooldown_s: float = DEFAULT_COOLDOWN_S
    ladders: tuple[Ladder, ...] = ()


def parse_hints(manifest: Manifest, where: Path | str = "problem.toml") -> HintSpec:
    """The ``[hints]`` table of a parsed problem.toml (an empty spec when there is none)."""
    raw = manifest.get("hints")
    if raw is None:
        return HintSpec(ladders=())
    if not isinstance(raw, dict):
        raise PackageError(f"{where}: [hints] must be a table")
    enabled = raw.get("enabled", True)
    after = raw.get("after", DEFAULT_AFTER)
    cooldown = raw.get("cooldown_s", DEFAULT_COOLDOWN_S)
    if not isinstance(enabled, bool):
        raise PackageError(f"{where}: hints.enabled must be true or false")
    if not isinstance(after, int) or isinstance(after, bool) or after < 1:
        raise PackageError(f"{where}: hints.after must be a positive integer")
    if not isinstance(cooldown, (int, float)) or isinstance(cooldown, bool) or cooldown < 0:
        raise PackageError(f"{where}: hints.cooldown_s must be a number of seconds >= 0")
    ladders = []
    for i, entry in enumerate(raw.get("ladders", [])):
        check = entry.get("check") if isinstance(entry, dict) else None
        hints = entry.get("ladder") if isinstance(entry, dict) else None
        if not isinstance(check, str) or not check.strip():
            raise PackageError(f"{where}: hints.ladders[{i}] needs a check")
        if not (isinstance(hints, list) and hints and all(isinstance(h, str) and h.strip() for h in hints)):
            raise PackageError(f"{where}: hints.ladders[{i}] ({check}) needs a non-empty ladder of texts")
        if any(len(h) > MAX_HINT_CHARS for h in hints):
            raise PackageError(f"{where}: hints.ladders[{i}] ({check}): a hint over {MAX_HINT_CHARS} characters")
        ladders.append(Ladder(check.strip(), tuple(h.strip() for h in hints)))
    checks = [ladder.check for ladder in ladders]
    if len(set(checks)) != len(checks):
        raise PackageError(f"{where}: a check has two ladders")
    return HintSpec(enabled, after, float(cooldown), tuple(ladders))


# ---------------------------------------------------------------- [tolerances], [benchmark]

@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


@dataclass(frozen=True)
class BenchShape:
    """One benchmark configuration: ``fn`` called with inputs built from a declarative spec.

    ``args`` is a list of input specs that the generic runner can build inside the sandbox
    from a seed, fresh for every iteration (see sandbox.runner.inputs.build_inputs): JSON literals, or
    ``{"randint": [lo, hi], "shape": [...]}``, ``{"randn": [...], "dtype": "float32"}``,
    ``{"lengths_mask": [B, T], "side": "right"}``.
    ``baseline`` ("kernels.module:function") is this shape's speed reference; the loader fills
    it from ``[benchmark].baseline`` when the shape does not name its own, so that several
    shapes may time different functions, each against its own baseline.
    ``case`` names the test case whose comparison (exact, allow_nan, check: tie rules) the
    re-verification of timed outputs uses; by default the first hidden case of ``fn`` that
    declares a ``check``, else the first hidden case of ``fn`` (see :func:`comparison_case`).
    """

    name: str
    fn: str
    args: list[Any]
    baseline: str | None = None
    case: str | None = None
    cost: CostModel | None = None  # bytes and flops that must move (sandbox/grader/cost.py)
    device: str = "any"  # where it is timed: "cpu", "gpu" or "any" (sandbox/bench/shape_rule.py)


@dataclass(frozen=True)
class Benchmark:
    fn: str
    baseline: str  # "kernels.module:function": the speed reference, timed in a sandbox of its own
    shapes: list[BenchShape]
    target_rel_error: float = 0.05
    max_time_s: float = 20.0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def tolerances_of(manifest: Manifest, where: Path | str = "problem.toml") -> dict[str, Tolerance]:
    """``[tolerances.<dtype>]`` tables, each with its atol and rtol."""
    raw = manifest.get("tolerances", {})
    if not isinstance(raw, dict):
        raise PackageError(f"{where}: `tolerances` must be a table of dtypes ([tolerances.float32])")
    out: dict[str, Tolerance] = {}
    for dtype, table in raw.items():
        if not (isinstance(table, dict) and _number(table.get("atol")) and _number(table.get("rtol"))):
            raise PackageError(f"{where}: tolerances.{dtype} needs atol and rtol, both numbers")
        out[dtype] = Tolerance(atol=float(table["atol"]), rtol=float(table["rtol"]))
    return out


def benchmark_of(manifest: Manifest, where: Path | str = "problem.toml") -> Benchmark | None:
    """The ``[benchmark]`` table and its ``[[benchmark.shapes]]`` (None when there is none)."""
    raw = manifest.get("benchmark")
    if not raw:
        return None
    if not isinstance(raw, dict):
        raise PackageError(f"{where}: `benchmark` must be a table ([benchmark] with fn, baseline)")
    fn, baseline = raw.get("fn"), raw.get("baseline")
    for key, value in (("fn", fn), ("baseline", baseline)):
        if not (isinstance(value, str) and value):
            raise PackageError(f"{where}: benchmark.{key} must be a name, not {value!r}")
    shapes = raw.get("shapes", [])
    if not (isinstance(shapes, list) and all(isinstance(s, dict) for s in shapes)):
        raise PackageError(f"{where}: benchmark.shapes must be an array of tables ([[benchmark.shapes]])")
    numbers = {key: raw.get(key, default) for key, default in
               (("target_rel_error", 0.05), ("max_time_s", 20.0))}
    for key, value in numbers.items():
        if not _number(value):
            raise PackageError(f"{where}: benchmark.{key} must be a number, not {value!r}")
    return Benchmark(fn=str(fn), baseline=str(baseline),
                     shapes=[_shape(s, str(fn), str(baseline), where) for s in shapes],
                     target_rel_error=float(numbers["target_rel_error"]),
                     max_time_s=float(numbers["max_time_s"]))


def _shape(raw: dict[str, Any], fn: str, baseline: str, where: Path | str) -> BenchShape:
    name = raw.get("name")
    if not (isinstance(name, str) and name):
        raise PackageError(f"{where}: every [[benchmark.shapes]] needs a name")
    for key in ("fn", "baseline", "case"):
        if not isinstance(raw.get(key, ""), str):
            raise PackageError(f"{where}: shape {name!r}: `{key}` must be a string")
    if not isinstance(raw.get("args"), list):
        raise PackageError(f"{where}: shape {name!r}: `args` must be a list of input specs")
    device = raw.get("device", "any")
    if device not in DEVICES:
        raise PackageError(f"{where}: shape {name!r}: `device` must be cpu, gpu or any")
    try:
        cost = parse_cost(raw.get("cost"))
    except CostError as exc:
        raise PackageError(f"{where}: shape {name!r}: {exc}") from None
    return BenchShape(name=name, fn=raw.get("fn", fn), args=raw["args"],
                      baseline=raw.get("baseline", baseline), case=raw.get("case"), cost=cost,
                      device=str(device))


# ---------------------------------------------------------------- [benchmark] cost tables


def shape_figures(manifest: Manifest) -> dict[str, tuple[float, float]]:
    """(bytes, flops) of each benchmark shape's cost table, by shape name, for a manifest the
    site stored (the result page's roofline, judge_site/submissions/roofline.py). A table that
    does not parse is left out: a package loaded today refuses it, a problem stored before may
    hold one."""
    bench = manifest.get("benchmark")
    shapes = bench.get("shapes") if isinstance(bench, dict) else None
    found: dict[str, tuple[float, float]] = {}
    for shape in shapes if isinstance(shapes, list) else []:
        if not isinstance(shape, dict) or not isinstance(shape.get("cost"), dict):
            continue
        figures = _table_figures(json.dumps(shape["cost"], sort_keys=True, default=str))
        if figures is not None:
            found[str(shape.get("name"))] = figures
    return found


@functools.lru_cache(maxsize=512)
def _table_figures(table: str) -> tuple[float, float] | None:
    """One cost table (as canonical JSON) parsed and evaluated, once per process and table."""
    try:
        cost = parse_cost(json.loads(table))
    except CostError:
        return None
    return (cost.bytes, cost.flops) if cost is not None else None

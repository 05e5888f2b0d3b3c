"""Problem packages: the on-disk format and its loader (trusted side only).

A package is a folder ``problems/<number>-<slug>/`` holding ``problem.toml``, ``statement.md``,
``starter.py``, ``solution.py``, ``tests.py`` and ``solutions/<VERDICT>/*.py``. See
problems/README.md for the author's view. Only the grader loads ``tests.py`` and
``solution.py``; neither ever enters a sandbox.

``tests.py`` defines ``CASES``: a list of :class:`Case`. Each case builds its arguments from a
``torch.Generator`` (seeded by the grader: a fixed seed for public cases so that the statement's
examples match, a secret per-judging seed for hidden ones) and names the function to call.
"""

from __future__ import annotations

import ast
import collections
import hashlib
import importlib.util
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from sandbox.contracts import FeedbackPolicy, Limits
from sandbox.cost import CostError, CostModel, parse_cost
from sandbox.feedback import hidden_policy
from sandbox.statement_cases import StatementCase, parse_statement_cases

# The folder holding the trusted ``kernels/`` package: references and speed baselines, read
# by the grader on the host and never copied into a sandbox image.
KERNELS_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FILES = ("problem.toml", "statement.md", "starter.py", "solution.py", "tests.py")


class PackageError(Exception):
    """A problem package is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Call:
    """The arguments of one call of the student's function."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One test: build a call, run it against the reference and the submission, compare.

    ``make(gen)`` returns the :class:`Call`; it must draw all randomness from ``gen``.
    ``grad_wrt`` lists positional indices of float tensor arguments whose gradients are also
    compared: the runner sets ``requires_grad`` on them, calls the function, and backpropagates
    a seeded random ``grad_output`` of the result's shape.
    ``check(expected, got)``, when given, replaces the default comparison; it receives decoded
    plain values (tensors, lists, numbers) and returns None when they agree, else a message.
    """

    name: str
    fn: str
    make: Callable[[Any], Call]
    public: bool = False
    grad_wrt: tuple[int, ...] = ()
    exact: bool = False  # compare bit-for-bit (ints, bools, and floats where demanded)
    allow_nan: bool = False  # NaN/Inf in expected may match NaN/Inf in got at the same place
    check: Callable[[Any, Any], str | None] | None = None
    note: str = ""  # what this case is about: "pad_id = -1, outside the vocabulary"
    tags: tuple[str, ...] = ()  # names a hint ladder may key on: check = "tag:padding" (sandbox/hints.py)


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
    cost: CostModel | None = None  # bytes and flops that must move (sandbox/bench/cost.py)
    device: str = "any"  # where it is timed: "cpu", "gpu" or "any" (sandbox/bench/shape_rule.py)


@dataclass(frozen=True)
class Benchmark:
    fn: str
    baseline: str  # "kernels.module:function": the speed reference, timed in a sandbox of its own
    shapes: list[BenchShape]
    target_rel_error: float = 0.05
    max_time_s: float = 20.0


@dataclass(frozen=True)
class ProblemPackage:
    path: Path
    number: int
    slug: str
    title: str
    difficulty: str
    chapter: str
    tags: list[str]
    device: str  # cpu | gpu | any
    functions: list[str]  # what the student's file must define
    limits: Limits
    tolerances: dict[str, Tolerance]  # by dtype name ("float32", "bfloat16", ...)
    feedback_hidden: FeedbackPolicy
    benchmark: Benchmark | None
    statement_md: str
    starter_code: str
    version: str  # content hash of every file of the package
    manifest: dict[str, Any]  # problem.toml as parsed, for the site
    # [[statement_cases]]: statement sentences and the cases proving them (None: no table)
    statement_cases: tuple[StatementCase, ...] | None = None

    @property
    def folder_name(self) -> str:
        return self.path.name

    def solutions(self) -> Iterator[tuple[str, Path]]:
        """(expected verdict, file) for every tagged solution under solutions/<VERDICT>/."""
        root = self.path / "solutions"
        if not root.is_dir():
            return
        for verdict_dir in sorted(p for p in root.iterdir() if p.is_dir()):
            for file in sorted(verdict_dir.glob("*.py")):
                yield verdict_dir.name, file

    def load_cases(self) -> list[Case]:
        module = _cached_module(self, "tests.py", f"_judge_tests_{self.number}")
        cases = getattr(module, "CASES", None)
        if not isinstance(cases, list) or not all(isinstance(c, Case) for c in cases):
            raise PackageError(f"{self.path / 'tests.py'}: CASES must be a list of Case")
        names = [c.name for c in cases]
        if len(set(names)) != len(names):
            raise PackageError(f"{self.path / 'tests.py'}: case names must be unique")
        return cases

    def load_reference(self) -> ModuleType:
        return _cached_module(self, "solution.py", f"_judge_reference_{self.number}")


# The tests and reference modules of the packages a process judged, by package path and
# content version: importing them anew cost 40-100 ms of every judging (a worker judges the
# same few problems over and over). Trusted code, loaded once per version.
_MODULES: collections.OrderedDict[tuple[str, str, str], ModuleType] = collections.OrderedDict()
_MODULES_MAX = 64
_modules_lock = threading.Lock()


def _cached_module(package: ProblemPackage, filename: str, name: str) -> ModuleType:
    key = (str(package.path), package.version, filename)
    with _modules_lock:
        module = _MODULES.get(key)
        if module is not None:
            _MODULES.move_to_end(key)
            sys.modules[name] = module  # as a fresh load leaves it (pickle, dataclasses)
            return module
    module = _load_module(package.path / filename, name)
    with _modules_lock:
        _MODULES[key] = module
        while len(_MODULES) > _MODULES_MAX:
            _MODULES.popitem(last=False)
    return module


def _load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PackageError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def package_version(path: Path) -> str:
    """sha256 over every file's relative path and bytes, in sorted order (first 16 hex)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(file.relative_to(path)).encode())
        digest.update(b"\0")
        digest.update(file.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _shape_device(path: Path, shape: dict[str, Any]) -> str:
    device = shape.get("device", "any")
    if device not in ("cpu", "gpu", "any"):
        raise PackageError(f"{path / 'problem.toml'}: shape {shape.get('name')!r}: `device` "
                           "must be cpu, gpu or any")
    return str(device)


def _cost(path: Path, shape: dict[str, Any]) -> CostModel | None:
    try:
        return parse_cost(shape.get("cost"))
    except CostError as exc:
        raise PackageError(f"{path / 'problem.toml'}: shape {shape.get('name')!r}: {exc}") from None


# What a package may ask for: a limit is a number within these bounds (inclusive), never 0
# (0 would mean "no limit" to the sandbox's memory cap) nor one past what a worker can give.
LIMIT_BOUNDS: dict[str, tuple[type, float, float]] = {
    "time_s": (float, 0.1, 120.0),  # per test; the judging task's own limit is 300 s
    "memory_mib": (int, 128, 65536),  # torch alone needs about 100 MiB
    "output_kib": (int, 1, 16384),
}


def _limits(raw: Any, where: Path) -> Limits:
    """The [limits] table, each value a number within LIMIT_BOUNDS, or PackageError."""
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


def load_package(path: Path | str) -> ProblemPackage:
    path = Path(path)
    for name in PACKAGE_FILES:
        if not (path / name).is_file():
            raise PackageError(f"{path}: missing {name}")
    try:
        manifest = tomllib.loads((path / "problem.toml").read_text())
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(f"{path / 'problem.toml'}: {exc}") from None

    def need(key: str, kind: type) -> Any:
        value = manifest.get(key)
        if not isinstance(value, kind):
            raise PackageError(f"{path / 'problem.toml'}: `{key}` must be a {kind.__name__}")
        return value

    limits = _limits(manifest.get("limits", {}), path / "problem.toml")
    tolerances = {
        dtype: Tolerance(atol=float(t["atol"]), rtol=float(t["rtol"]))
        for dtype, t in manifest.get("tolerances", {}).items()
    }
    bench_raw = manifest.get("benchmark")
    benchmark = None
    if bench_raw:
        benchmark = Benchmark(
            fn=bench_raw["fn"],
            baseline=bench_raw["baseline"],
            shapes=[
                BenchShape(
                    name=s["name"],
                    fn=s.get("fn", bench_raw["fn"]),
                    args=s["args"],
                    baseline=s.get("baseline", bench_raw["baseline"]),
                    case=s.get("case"),
                    cost=_cost(path, s),
                    device=_shape_device(path, s),
                )
                for s in bench_raw.get("shapes", [])
            ],
            target_rel_error=float(bench_raw.get("target_rel_error", 0.05)),
            max_time_s=float(bench_raw.get("max_time_s", 20.0)),
        )
    try:
        statement_cases = parse_statement_cases(manifest.get("statement_cases"))
    except ValueError as exc:
        raise PackageError(f"{path / 'problem.toml'}: {exc}") from None
    device = manifest.get("device", "cpu")
    if device not in ("cpu", "gpu", "any"):
        raise PackageError(f"{path / 'problem.toml'}: `device` must be cpu, gpu or any")
    return ProblemPackage(
        path=path,
        number=need("number", int),
        slug=need("slug", str),
        title=need("title", str),
        difficulty=need("difficulty", str),
        chapter=manifest.get("chapter", ""),
        tags=list(manifest.get("tags", [])),
        device=device,
        functions=list(need("functions", list)),
        limits=limits,
        tolerances=tolerances,
        feedback_hidden=hidden_policy(manifest),
        benchmark=benchmark,
        statement_md=(path / "statement.md").read_text(),
        starter_code=(path / "starter.py").read_text(),
        version=package_version(path),
        manifest=manifest,
        statement_cases=statement_cases,
    )


def find_package(problems_dir: Path, key: str | int) -> ProblemPackage:
    """The package whose number or slug is ``key`` (e.g. "48" or "embedding-tied-head-padding")."""
    key = str(key)
    for folder in sorted(p for p in problems_dir.iterdir() if (p / "problem.toml").is_file()):
        number, _, slug = folder.name.partition("-")
        if key in (slug, folder.name) or (key.isdigit() and number.isdigit() and int(key) == int(number)):
            return load_package(folder)
    raise PackageError(f"no problem {key!r} in {problems_dir}")


# --- trusted sources: the kernels package expanded in place of its imports -------------------


def kernels_module_path(module: str, kernels_root: Path | None = None) -> Path:
    """``kernels_root/kernels/<name>.py`` for ``module`` = "kernels.<name>" (a PackageError for
    anything else: baselines and references live in the kernels package only)."""
    prefix, _, name = module.partition(".")
    if prefix != "kernels" or not name.isidentifier():
        raise PackageError(f"{module!r} is not a module of the kernels package (kernels.<name>)")
    path = (kernels_root or KERNELS_ROOT) / "kernels" / f"{name}.py"
    if not path.is_file():
        raise PackageError(f"no module {module} ({path})")
    return path


def _kernels_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    return [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").split(".")[0] == "kernels"
    ]


def _defined_names(tree: ast.Module) -> set[str]:
    """Top-level names a module defines itself (functions, classes, assignments)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def inline_kernels(source: str, kernels_root: Path | None = None, filename: str = "<trusted>") -> str:
    """A TRUSTED file's source (a package's solution.py, a generated baseline file) with every
    top-level ``from kernels.X import a, b as c`` replaced by the source of ``kernels/X.py``
    (read from ``kernels_root``) followed by ``c = b`` for each renamed import, so that the
    file runs in a sandbox whose image holds no kernels package. Kernels modules are
    self-contained (they import only the standard library, torch and triton); ``from
    __future__`` lines are gathered at the top. Never used on a student's file.

    The result is one file on disk in the sandbox, so Triton's ``inspect.getsource`` of an
    inlined ``@triton.jit`` function works. Two inlined modules that define the same top-level
    name are refused (one would silently replace the other's)."""
    tree = ast.parse(source, filename=filename)
    imports = _kernels_imports(tree)
    if not imports:
        return source
    lines = source.splitlines(keepends=True)
    futures: list[str] = []
    defined: dict[str, str] = {}
    inlined: set[str] = set()
    # Replace from the bottom up so earlier line numbers stay valid.
    replacements: list[tuple[int, int, str]] = []
    for node in imports:
        module = node.module or ""
        path = kernels_module_path(module, kernels_root)
        text = path.read_text(encoding="utf-8")
        inner = ast.parse(text, filename=str(path))
        if _kernels_imports(inner):
            raise PackageError(f"{path}: a kernels module must not import the kernels package")
        for name in _defined_names(inner):
            if defined.setdefault(name, module) != module:
                raise PackageError(
                    f"{filename}: {module} and {defined[name]} both define {name!r}; "
                    "they cannot be inlined into one file"
                )
        body = text.splitlines(keepends=True)
        for stmt in inner.body:
            if _is_future(stmt):
                futures.append("".join(body[stmt.lineno - 1 : stmt.end_lineno]).strip())
                for i in range(stmt.lineno - 1, stmt.end_lineno or stmt.lineno):
                    body[i] = "\n"
        names = {alias.name for alias in node.names}
        if "*" in names:
            raise PackageError(f"{filename}: `from {module} import *` cannot be inlined")
        missing = sorted(names - _defined_names(inner) - _imported_names(inner))
        if missing:
            raise PackageError(f"{filename}: {module} defines no {', '.join(missing)}")
        aliases = "".join(
            f"{alias.asname} = {alias.name}\n"
            for alias in node.names
            if alias.asname and alias.asname != alias.name
        )
        if module in inlined:  # a second import of one module: its names only
            replacements.append((node.lineno, node.end_lineno or node.lineno, aliases))
            continue
        inlined.add(module)
        block = f"# --- inlined from {module} ---\n" + "".join(body)
        if not block.endswith("\n"):
            block += "\n"
        block += aliases + f"# --- end of {module} ---\n"
        replacements.append((node.lineno, node.end_lineno or node.lineno, block))
    for stmt in tree.body:
        if _is_future(stmt):
            futures.append("".join(lines[stmt.lineno - 1 : stmt.end_lineno]).strip())
            replacements.append((stmt.lineno, stmt.end_lineno or stmt.lineno, ""))
    for first, last, block in sorted(replacements, reverse=True):
        lines[first - 1 : last] = [block]
    head = "".join(f"{line}\n" for line in dict.fromkeys(futures))
    return head + "".join(lines)


def _imported_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def baseline_file(baselines: list[str], kernels_root: Path | None = None) -> tuple[str, dict[str, str]]:
    """The source of one file defining every baseline ("kernels.module:function"), the
    kernels modules inlined, and the name each baseline has in it ("baseline_0", ...): what
    the baseline's own sandbox loads as its submission."""
    by_module: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for index, baseline in enumerate(sorted(set(baselines))):
        module, sep, func = baseline.partition(":")
        if not sep or not func.isidentifier():
            raise PackageError(f"baseline {baseline!r} is not kernels.<module>:<function>")
        kernels_module_path(module, kernels_root)  # a kernels module, and it exists
        names[baseline] = f"baseline_{index}"
        by_module.setdefault(module, []).append(f"{func} as baseline_{index}")
    lines = [f"from {module} import {', '.join(parts)}\n" for module, parts in by_module.items()]
    header = '"""The speed baselines of one judging (trusted kernels, inlined)."""\n'
    return inline_kernels(header + "".join(lines), kernels_root, "<baselines>"), names

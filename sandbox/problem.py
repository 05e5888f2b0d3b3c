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

import hashlib
import importlib.util
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from sandbox.contracts import FeedbackPolicy, Limits

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


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


@dataclass(frozen=True)
class BenchShape:
    """One benchmark configuration: ``fn`` called with inputs built from a declarative spec.

    ``args`` is a list of input specs that the generic runner can build inside the sandbox
    from a seed, fresh for every iteration (see sandbox.inputs.build_inputs): JSON literals, or
    ``{"randint": [lo, hi], "shape": [...]}``, ``{"randn": [...], "dtype": "float32"}``,
    ``{"lengths_mask": [B, T], "side": "right"}``.
    ``baseline`` ("kernels.module:function") is this shape's speed reference; the loader fills
    it from ``[benchmark].baseline`` when the shape does not name its own, so that several
    shapes may time different functions, each against its own baseline.
    """

    name: str
    fn: str
    args: list[Any]
    baseline: str | None = None


@dataclass(frozen=True)
class Benchmark:
    fn: str
    baseline: str  # "kernels.module:function": the speed reference, runs inside the sandbox
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
        module = _load_module(self.path / "tests.py", f"_judge_tests_{self.number}")
        cases = getattr(module, "CASES", None)
        if not isinstance(cases, list) or not all(isinstance(c, Case) for c in cases):
            raise PackageError(f"{self.path / 'tests.py'}: CASES must be a list of Case")
        names = [c.name for c in cases]
        if len(set(names)) != len(names):
            raise PackageError(f"{self.path / 'tests.py'}: case names must be unique")
        return cases

    def load_reference(self) -> ModuleType:
        return _load_module(self.path / "solution.py", f"_judge_reference_{self.number}")


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

    limits_raw = manifest.get("limits", {})
    limits = Limits(
        time_s=float(limits_raw.get("time_s", Limits.time_s)),
        memory_mib=int(limits_raw.get("memory_mib", Limits.memory_mib)),
        output_kib=int(limits_raw.get("output_kib", Limits.output_kib)),
    )
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
                )
                for s in bench_raw.get("shapes", [])
            ],
            target_rel_error=float(bench_raw.get("target_rel_error", 0.05)),
            max_time_s=float(bench_raw.get("max_time_s", 20.0)),
        )
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
        feedback_hidden=FeedbackPolicy(manifest.get("feedback", {}).get("hidden", "category")),
        benchmark=benchmark,
        statement_md=(path / "statement.md").read_text(),
        starter_code=(path / "starter.py").read_text(),
        version=package_version(path),
        manifest=manifest,
    )


def find_package(problems_dir: Path, key: str | int) -> ProblemPackage:
    """The package whose number or slug is ``key`` (e.g. "48" or "embedding-tied-head-padding")."""
    key = str(key)
    for folder in sorted(p for p in problems_dir.iterdir() if (p / "problem.toml").is_file()):
        number, _, slug = folder.name.partition("-")
        if key in (slug, folder.name) or (key.isdigit() and number.isdigit() and int(key) == int(number)):
            return load_package(folder)
    raise PackageError(f"no problem {key!r} in {problems_dir}")

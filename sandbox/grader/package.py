"""Problem packages: the on-disk format and its loader (trusted side only). The cases a tests.py
defines are sandbox/problem.py's (the authors' face); kernels_source.py inlines trusted sources.

A package is a folder ``problems/<number>-<slug>/`` holding ``problem.toml``, ``statement.md``,
``starter.py``, ``solution.py``, ``tests.py`` and ``solutions/<VERDICT>/*.py``. See
problems/README.md for the author's view. Only the grader loads ``tests.py`` and
``solution.py``; neither ever enters a sandbox.

``tests.py`` defines ``CASES``: a list of :class:`Case`. Each case builds its arguments from a
``torch.Generator`` (seeded by the grader: a fixed seed for public cases so that the statement's
examples match, a secret per-judging seed for hidden ones) and names the function to call.
"""

from __future__ import annotations

import collections
import hashlib
import importlib.util
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sandbox.grader.contracts import FeedbackPolicy, Limits
from sandbox.grader.manifest import (
    DEVICES,
    Benchmark,
    HintSpec,
    PackageError,
    Tolerance,
    benchmark_of,
    choice_of,
    feedback_of,
    field_of,
    kind_of,
    limits_of,
    parse_hints,
    requires_of,
    statement_cases_of,
    tolerances_of,
)
from sandbox.grader.manifest import BenchShape as BenchShape  # importers take the types from here
from sandbox.grader.statement_cases import StatementCase
from sandbox.practice.package import PracticeSettings, practice_of
from sandbox.problem import Case

PACKAGE_FILES = ("problem.toml", "statement.md", "starter.py", "solution.py", "tests.py")
# language -> (the student's file suffix, the files a package of it must have besides the
# common ones). A "cuda" package's solution.py is still the trusted reference; its solution.cu is
# the model answer, bindings.py how the compiled launch function is called on tensors. "cpp"
# (C++) is a practice package's only: see HARNESS_FILES.
LANGUAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "python": (".py", ("starter.py",)),
    "cuda": (".cu", ("starter.cu", "solution.cu", "bindings.py")),
    "cpp": (".cpp", ("starter.cpp", "solution.cpp")),
}
COMMON_FILES = ("problem.toml", "statement.md", "solution.py", "tests.py")
# A practice package whose test is a program (C++ or CUDA C++, [practice] harness; its tests
# under harness/, sandbox/practice/harness.py): starter<suffix> and solution<suffix>, the model
# answer; no Python reference, no bindings. One imported before packages had the "cpp" language
# (no `language`) keeps the C++ or CUDA source in starter.py / solution.py and still loads so.
HARNESS_FILES = ("problem.toml", "statement.md", "tests.py")


def required_files(language: str, kind: str) -> tuple[str, ...]:
    """The files a package of ``language`` and ``kind`` must hold."""
    if kind == "practice" and language != "python":
        suffix = LANGUAGES[language][0]
        return (*HARNESS_FILES, f"starter{suffix}", f"solution{suffix}")
    return (*COMMON_FILES, *LANGUAGES[language][1])


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
    # problem.toml as parsed: the site stores it (judge_site/catalog/services.py, Problem.manifest)
    # and reads it back through sandbox/grader/manifest.py; the judge reads the typed fields
    manifest: dict[str, Any]
    # [[statement_cases]]: statement sentences and the cases proving them (None: no table)
    statement_cases: tuple[StatementCase, ...] | None = None
    language: str = "python"  # a key of LANGUAGES: what the student writes (and the files' suffix)
    bindings: str = ""  # a cuda package's bindings.py (runs in the student's sandbox)
    kind: str = "tensor"  # one of manifest.PROBLEM_KINDS: how its files are judged
    requires: tuple[str, ...] = ()  # modules the sandbox must import beyond torch ("triton")
    hints: HintSpec = HintSpec()  # [hints]: the ladders a student who fails a check climbs
    practice: PracticeSettings | None = None  # [practice], for a package of that kind

    @property
    def suffix(self) -> str:
        """The student's file suffix: ".py", ".cu" for a cuda package, ".cpp" for a cpp one."""
        return LANGUAGES[self.language][0]

    @property
    def starter_file(self) -> Path:
        return self.path / f"starter{self.suffix}"

    @property
    def answer_file(self) -> Path:
        """The model answer the package check judges (solution.py, .cu or .cpp)."""
        return self.path / f"solution{self.suffix}"

    @property
    def folder_name(self) -> str:
        return self.path.name

    @property
    def harness(self) -> str:
        """A practice package whose tests are a program: its ``[practice] harness`` ("cpp",
        "cuda"); "" for any other package."""
        return self.practice.harness if self.practice is not None else ""

    def solutions(self) -> Iterator[tuple[str, Path]]:
        """(expected verdict, file) for every tagged solution under solutions/<VERDICT>/."""
        root = self.path / "solutions"
        if not root.is_dir():
            return
        for verdict_dir in sorted(p for p in root.iterdir() if p.is_dir()):
            for file in sorted(verdict_dir.glob(f"*{self.suffix}")):
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


def load_package(path: Path | str) -> ProblemPackage:
    path = Path(path)
    if not (path / "problem.toml").is_file():
        raise PackageError(f"{path}: missing problem.toml")
    try:
        manifest = tomllib.loads((path / "problem.toml").read_text())
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(f"{path / 'problem.toml'}: {exc}") from None
    toml = path / "problem.toml"
    language = choice_of(manifest, "language", tuple(LANGUAGES), toml)
    kind = kind_of(manifest, toml)
    if language == "cpp" and kind != "practice":
        raise PackageError(f"{toml}: `language = \"cpp\"` is for a practice package's C++ "
                           "exercise (kind = \"practice\")")
    practice = practice_of(manifest, toml) if kind == "practice" else None
    if practice is not None and language != "python" and practice.harness != language:
        raise PackageError(f"{toml}: `language = \"{language}\"` needs a test program of that "
                           f"language ([practice] harness = \"{language}\")")
    required = required_files(language, kind)
    for name in required:
        if not (path / name).is_file():
            raise PackageError(f"{path}: missing {name}")
    return ProblemPackage(
        path=path,
        number=field_of(manifest, "number", int, toml),
        slug=field_of(manifest, "slug", str, toml),
        title=field_of(manifest, "title", str, toml),
        difficulty=field_of(manifest, "difficulty", str, toml),
        chapter=field_of(manifest, "chapter", str, toml, ""),
        tags=field_of(manifest, "tags", list, toml, []),
        device=choice_of(manifest, "device", DEVICES, toml),
        functions=field_of(manifest, "functions", list, toml),
        limits=limits_of(manifest, toml),
        tolerances=tolerances_of(manifest, toml),
        feedback_hidden=feedback_of(manifest, toml),
        benchmark=benchmark_of(manifest, toml),
        statement_md=(path / "statement.md").read_text(),
        starter_code=(path / f"starter{LANGUAGES[language][0]}").read_text(),
        version=package_version(path),
        manifest=manifest,
        statement_cases=statement_cases_of(manifest, toml),
        language=language,
        bindings=(path / "bindings.py").read_text() if "bindings.py" in required else "",
        kind=kind,
        requires=requires_of(manifest, toml),
        hints=parse_hints(manifest, toml),
        practice=practice,
    )


def find_package(problems_dir: Path, key: str | int) -> ProblemPackage:
    """The package whose number or slug is ``key`` (e.g. "48" or "embedding-tied-head-padding")."""
    key = str(key)
    for folder in sorted(p for p in problems_dir.iterdir() if (p / "problem.toml").is_file()):
        number, _, slug = folder.name.partition("-")
        if key in (slug, folder.name) or (key.isdigit() and number.isdigit() and int(key) == int(number)):
            return load_package(folder)
    raise PackageError(f"no problem {key!r} in {problems_dir}")

"""A problem package of the kind ``practice``, read back (torch-free: the web imports it): its
``[practice]`` settings, the tests it refuses and why, its public examples and solution notes.
The package is written from a folder by folder.py's :func:`write_package`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.grader.manifest import PackageError
from sandbox.practice.scan import Unsupported, scan_tests

# ---------------------------------------------------------------- a package of this kind


@dataclass(frozen=True)
class PracticeSettings:
    """The ``[practice]`` table: the test.py's tests in order, the public ones, and the tests
    the judge refuses (``[[practice.unsupported]]`` with action "refused") with the reason; for a
    C++ / CUDA C++ exercise (sandbox/practice/harness.py) its test program: ``harness`` (the
    language, "" for a Python exercise), ``sanitize``, ``main`` and the other ``files``."""

    tests: tuple[str, ...] = ()
    public: tuple[str, ...] = ()
    refused: dict[str, str] = field(default_factory=dict)
    harness: str = ""
    sanitize: str = ""
    main: str = ""
    files: tuple[str, ...] = ()

    def judged(self) -> list[str]:
        """The tests the judge runs, in order."""
        return [name for name in self.tests if name not in self.refused]


def practice_of(manifest: Mapping[str, Any], where: Path | str = "problem.toml") -> PracticeSettings:
    """The ``[practice]`` table of a package (ProblemPackage.practice; the site reads a stored
    manifest with it too), or PackageError naming the field."""
    raw = manifest.get("practice", {})
    if not isinstance(raw, dict):
        raise PackageError(f"{where}: [practice] must be a table")

    def names(key: str) -> tuple[str, ...]:
        value = raw.get(key, [])
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise PackageError(f"{where}: practice.{key} must be a list of names")
        return tuple(value)

    def text(key: str) -> str:
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise PackageError(f"{where}: practice.{key} must be a string, not {value!r}")
        return value

    refused: dict[str, str] = {}
    items = raw.get("unsupported", [])
    if not (isinstance(items, list) and all(isinstance(i, dict) for i in items)):
        raise PackageError(f"{where}: practice.unsupported must be an array of tables")
    for item in items:
        if item.get("action") == "refused":
            refused.setdefault(str(item.get("test")), str(item.get("reason", "")))
    return PracticeSettings(names("tests"), names("public"), refused, text("harness"),
                            text("sanitize"), text("main"), names("files"))


def public_examples(package_dir: Path | str, public: Collection[str]) -> list[dict[str, str]]:
    """Name, function (empty) and note (the docstring's first line) of each ``public`` test,
    read from the package's tests.py without running anything; hidden tests are never listed."""
    tests, _, _ = scan_tests((Path(package_dir) / "tests.py").read_text())
    return [{"name": t.name, "fn": "", "note": t.doc} for t in tests if t.name in public]


def notes_of(package_dir: Path | str) -> str:
    """The solution notes (Markdown) of a practice package, '' when it has none."""
    path = Path(package_dir) / "notes.md"
    return path.read_text(encoding="utf-8").strip() if path.is_file() else ""


def read_folder_tests_unsupported(package_dir: Path | str) -> list[Unsupported]:
    """What the static scan finds in a package's tests.py."""
    return scan_tests((Path(package_dir) / "tests.py").read_text(encoding="utf-8"))[2]

"""A problem package of the kind ``practice``, read back (torch-free: the web imports it): its
``[practice]`` settings, the tests it refuses and why, its public examples and solution notes.
The package is written from a folder by folder.py's :func:`write_package`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from sandbox.practice.folder import KIND
from sandbox.practice.scan import Unsupported, scan_tests

# ---------------------------------------------------------------- a package of this kind


def is_practice(manifest: dict[str, Any]) -> bool:
    return manifest.get("kind") == KIND


def settings_of(manifest: dict[str, Any]) -> dict[str, Any]:
    practice = manifest.get("practice", {})
    return practice if isinstance(practice, dict) else {}


def refused_tests(manifest: dict[str, Any]) -> dict[str, str]:
    """Test name -> reason, for the tests the judge does not run."""
    out: dict[str, str] = {}
    for item in settings_of(manifest).get("unsupported", []):
        if isinstance(item, dict) and item.get("action") == "refused":
            out.setdefault(str(item.get("test")), str(item.get("reason", "")))
    return out


def public_examples(package_dir: Path | str) -> list[dict[str, str]]:
    """Name, function (empty) and note (the docstring's first line) of each public test, read
    from the package without running anything; hidden tests are never listed."""
    path = Path(package_dir)
    manifest = tomllib.loads((path / "problem.toml").read_text())
    public = set(settings_of(manifest).get("public", []))
    tests, _, _ = scan_tests((path / "tests.py").read_text())
    return [{"name": t.name, "fn": "", "note": t.doc} for t in tests if t.name in public]


def notes_of(package_dir: Path | str) -> str:
    """The solution notes (Markdown) of a practice package, '' when it has none."""
    path = Path(package_dir) / "notes.md"
    return path.read_text(encoding="utf-8").strip() if path.is_file() else ""


def read_folder_tests_unsupported(package_dir: Path | str) -> list[Unsupported]:
    """What the static scan finds in a package's tests.py."""
    return scan_tests((Path(package_dir) / "tests.py").read_text(encoding="utf-8"))[2]

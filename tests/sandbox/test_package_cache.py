"""A worker loads a package's tests and reference once per content version (sandbox/problem.py):
the same modules while the files are unchanged, fresh ones after any file changes."""

from __future__ import annotations

import shutil
from pathlib import Path

from sandbox.grader.package import load_package

P48 = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"


def test_modules_are_loaded_once_per_version(tmp_path: Path) -> None:
    folder = tmp_path / "048-copy"
    shutil.copytree(P48, folder)
    first = load_package(folder)
    assert first.load_reference() is load_package(folder).load_reference()
    assert first.load_cases() == load_package(folder).load_cases()

    tests = folder / "tests.py"
    tests.write_text(tests.read_text() + "\nCASES = CASES[:3]\n")
    changed = load_package(folder)
    assert changed.version != first.version
    assert len(changed.load_cases()) == 3 < len(first.load_cases())
    (folder / "solution.py").write_text((folder / "solution.py").read_text() + "\nMARK = 1\n")
    again = load_package(folder)
    assert getattr(again.load_reference(), "MARK", None) == 1
    assert not hasattr(first.load_reference(), "MARK")

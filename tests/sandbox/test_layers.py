"""The package's floors, read from its import graph (every import, at any depth of a module).

sandbox/runner/ is what runs inside the student's sandbox (and all the image holds): it may
import nothing of ours above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

SANDBOX = Path(__file__).resolve().parents[2] / "sandbox"


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, absolute names (``from sandbox.x import y`` gives both
    ``sandbox.x`` and ``sandbox.x.y``, since y may be a module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def ours(names: set[str]) -> set[str]:
    return {n for n in names if n == "sandbox" or n.startswith("sandbox.")}


def test_the_runner_imports_nothing_above_it() -> None:
    files = sorted((SANDBOX / "runner").rglob("*.py"))
    assert len(files) >= 8
    above = {
        f"{path.relative_to(SANDBOX.parent)}: {name}"
        for path in files
        for name in ours(imports_of(path))
        if not name.startswith("sandbox.runner")
    }
    assert not above, f"the runner imports from above it: {sorted(above)}"


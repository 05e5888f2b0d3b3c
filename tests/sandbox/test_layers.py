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
        if not name.startswith(("sandbox.runner", "sandbox.cuda"))
    }
    assert not above, f"the runner imports from above it: {sorted(above)}"


def test_the_cuda_toolkit_imports_only_itself() -> None:
    """sandbox/cuda/ (the compile, the emulation, the call) runs in the sandbox below the runner."""
    files = sorted((SANDBOX / "cuda").rglob("*.py"))
    above = {f"{path.relative_to(SANDBOX.parent)}: {name}" for path in files
             for name in ours(imports_of(path)) if not name.startswith("sandbox.cuda")}
    assert files and not above, f"sandbox/cuda imports from above it: {sorted(above)}"



def floor_imports(folder: str) -> set[str]:
    """``path: module`` for every import of ours in a folder of sandbox/."""
    return {
        f"{path.relative_to(SANDBOX.parent)}: {name}"
        for path in sorted((SANDBOX / folder).rglob("*.py"))
        for name in ours(imports_of(path))
    }


def test_the_backends_import_only_the_runner_below_them() -> None:
    above = {line for line in floor_imports("host/backends")
             if not line.split(": ")[1].startswith(("sandbox.runner", "sandbox.host.backends"))}
    assert not above, f"the backends import from above them: {sorted(above)}"


def test_the_grader_reaches_the_host_through_the_sandbox_interface_only() -> None:
    """The grader (with bench/ and practice/) drives sandboxes through host/backends; the
    launcher (confined.py, relay_service.py, phases.py) sits above it and is never imported."""
    launcher = {
        line for folder in ("grader", "bench", "practice")
        for line in floor_imports(folder)
        if line.split(": ")[1].startswith("sandbox.host")
        and not line.split(": ")[1].startswith("sandbox.host.backends")
    }
    assert not launcher, f"the grader imports the launcher: {sorted(launcher)}"


def test_no_top_level_module_but_the_faces() -> None:
    """``python -m sandbox`` (__main__.py), the package's docstring, and sandbox/problem.py
    (Call and Case: what every package's tests.py imports, uploaded ones too)."""
    faces = {"__init__.py", "__main__.py", "problem.py"}
    modules = {path.name for path in SANDBOX.glob("*.py")}
    assert modules <= faces, f"top-level modules that belong in a floor: {sorted(modules - faces)}"


def test_ops_are_written_only_by_their_protocol_modules() -> None:
    """The runner's ops (sandbox/runner/protocol.py) and the confined grader's jobs
    (sandbox/grader/relay.py) are built in their protocol modules, nowhere else."""
    owners = {SANDBOX / "runner" / "protocol.py", SANDBOX / "grader" / "relay.py"}
    written = sorted(
        str(path.relative_to(SANDBOX.parent))
        for root in (SANDBOX, SANDBOX.parent / "judge_site")
        for path in root.rglob("*.py")
        if path not in owners and '{"op":' in path.read_text(encoding="utf-8")
    )
    assert not written, f"op literals outside the protocol modules: {written}"

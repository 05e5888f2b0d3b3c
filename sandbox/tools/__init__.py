"""Developer tools, each run as ``python -m sandbox.tools.<name>`` (scripts/ keeps a launcher of
the same name and flags for each, scripts/lib/run_module): figures and sweeps, not part of the
judge, which imports nothing from here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

# The repository: its problems/ catalog, for the tools that read it.
ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "problems"


def load_file(path: Path, name: str) -> ModuleType:
    """The Python file ``path`` imported as module ``name`` (a package's tests.py, a solution)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

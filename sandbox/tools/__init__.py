"""Developer tools, each run as ``python -m sandbox.tools.<name>`` (scripts/ keeps a launcher of
the same name and flags for each, scripts/lib/run_module): figures and sweeps, not part of the
judge, which imports nothing from here."""

from __future__ import annotations

from pathlib import Path

# The loader of a package's own files (tests.py, solution.py), for any Python file of a package:
# a solution under solutions/, a tests.py read apart from its cases (package.py owns it).
from sandbox.grader.package import _load_module as load_file

__all__ = ["CATALOG", "ROOT", "load_file"]

# The repository: its problems/ catalog, for the tools that read it.
ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "problems"

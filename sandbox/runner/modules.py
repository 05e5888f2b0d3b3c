"""Modules a package gives the student's sandbox beside the student's file (a practice folder's
runtime from the handbook's clone: sandbox/practice/runtime.py): written under the submission's
folder and put first on ``sys.path`` before the student's file is imported, so its ``import
gpusim`` finds them. They run here, in the student's process, and nowhere else.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

_PATH = re.compile(r"^[A-Za-z_]\w{0,80}(?:/[A-Za-z_]\w{0,80}){0,4}\.py$")
MAX_FILES = 64


def install(modules: Any, folder: str) -> None:
    """Write ``modules`` (path -> text, e.g. ``gpusim.py``, ``pkg/__init__.py``) into
    ``folder/modules`` and put that first on ``sys.path``; nothing for an empty mapping.
    ValueError for a path that is not a plain relative module path."""
    if not modules:
        return
    if not isinstance(modules, dict) or len(modules) > MAX_FILES:
        raise ValueError("modules: a mapping of at most 64 module files")
    root = os.path.join(folder, "modules")
    for relative, text in modules.items():
        if not (isinstance(relative, str) and _PATH.match(relative) and isinstance(text, str)):
            raise ValueError(f"modules: {str(relative)[:100]!r} is not a module path")
        path = os.path.join(root, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    if root not in sys.path:
        sys.path.insert(0, root)

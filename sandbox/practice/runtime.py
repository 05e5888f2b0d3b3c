"""The handbook's own runtime for the practice folders whose code imports it: ``gpusim`` (a GPU
simulator in numpy), ``tritonkit`` and ``minitl`` (Triton on numpy), the files of the clone's
``practice/runtime/``. They are MIT code of the user's clone: never copied into this repository,
read at import time like the texts (torch-free: the web process imports this module).

At import (:func:`runtime_files`): the modules a folder's code imports (its ``import`` lines,
then theirs, transitively) that the clone's ``practice/runtime/`` holds (``NAME.py`` or a package
``NAME/``) are stored in the package under ``runtime/``; ``import triton`` means the emulation
(``tritonkit`` installing ``minitl`` as ``triton``, as the handbook's judge does off a GPU).
A folder that imports one of the handbook's modules from a clone without them is a
PracticeError naming the module and where it was looked for.

At judging (sandbox/grader/kinds/practice.py): the files travel in the load request into the
student's sandbox, on ``sys.path`` before the student's file is imported
(sandbox/runner/modules.py); they run there and only there. The test.py in the grader imports
them as proxies of the sandbox's modules (sandbox/practice/runtime_proxy.py), so a device array
the test makes lives in the sandbox beside the student's kernel that writes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from sandbox.practice import PracticeError

PACKAGE_DIR = "runtime"  # in a practice package
HANDBOOK_MODULES = ("gpusim", "tritonkit", "minitl")  # the clone must hold what a folder imports
TRITON = "triton"  # emulated by tritonkit on minitl
OURS = frozenset({"checker", "solution"})  # the judge gives these itself
MAX_FILES = 40
MAX_FILE_BYTES = 512 * 1024
MAX_DEPTH = 8  # parent folders searched for practice/runtime
# The module the sandbox imports as ``triton``: the handbook's emulation, installed the way its
# own judge installs it off a GPU (practice/judge.py, the browser's worker).
TRITON_STUB = "import tritonkit as _tk\n\n_tk.install(prefer_real=False)\n"
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^#\n;]+)|^[ \t]*from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b",
                     re.M)


def imported(texts: Iterable[str]) -> set[str]:
    """The top-level module names of every ``import``/``from ... import`` line in ``texts``
    (relative imports excluded)."""
    names: set[str] = set()
    for text in texts:
        for match in _IMPORT.finditer(text):
            if match.group(2):
                names.add(match.group(2))
                continue
            for part in match.group(1).split(","):
                words = part.strip().split()
                if words and re.fullmatch(r"[A-Za-z_][\w.]*", words[0]):
                    names.add(words[0].split(".")[0])
    return names


def find_runtime(folder: Path) -> Path | None:
    """The clone's ``practice/runtime`` folder: in the nearest of ``folder``'s parent folders
    (itself included) that holds one, or None."""
    here = folder.resolve()
    for ancestor in [here, *here.parents][:MAX_DEPTH]:
        for candidate in (ancestor / "practice" / PACKAGE_DIR,
                          ancestor / PACKAGE_DIR if ancestor.name == "practice" else None):
            if candidate is not None and candidate.is_dir() and not candidate.is_symlink():
                return candidate
    return None


def _read(path: Path, where: str) -> str:
    if path.is_symlink() or not path.is_file():
        raise PracticeError(f"{where}: not a plain file")
    return read_capped(path, where)


def read_capped(path: Path, where: str) -> str:
    """An existing file's UTF-8 text, at most MAX_FILE_BYTES (PracticeError naming ``where``)."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise PracticeError(f"{where}: larger than {MAX_FILE_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PracticeError(f"{where}: not UTF-8 text") from None


def _module_files(runtime: Path, name: str) -> dict[str, str]:
    """``NAME.py`` or the package ``NAME/`` (its .py files) of the runtime folder, by path."""
    single = runtime / f"{name}.py"
    if single.is_file():
        return {single.name: _read(single, f"practice/runtime/{single.name}")}
    package = runtime / name
    if not (package / "__init__.py").is_file() or package.is_symlink():
        return {}
    files = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(runtime).as_posix()
        if "__pycache__" not in relative:
            files[relative] = _read(path, f"practice/runtime/{relative}")
    return files


def runtime_files(folder: Path, texts: Iterable[str]) -> dict[str, str]:
    """The runtime files (path under ``runtime/`` -> text) that the folder's code ``texts``
    needs, read from its clone; {} for a folder that imports none. PracticeError when it
    imports one of the handbook's modules and the clone does not hold it."""
    direct = imported(texts) - OURS
    wanted = direct | ({"tritonkit"} if TRITON in direct else set())
    if not wanted & {*HANDBOOK_MODULES, TRITON}:
        return {}
    runtime = find_runtime(folder)
    files: dict[str, str] = {}
    seen: set[str] = set()
    missing: list[str] = []
    queue = sorted(wanted)
    while queue:
        name = queue.pop()
        if name in seen or name in OURS:
            continue
        seen.add(name)
        found = _module_files(runtime, name) if runtime is not None else {}
        if not found:
            if name in HANDBOOK_MODULES:
                missing.append(name)
            continue
        files.update(found)
        if len(files) > MAX_FILES:
            raise PracticeError(f"practice/runtime: more than {MAX_FILES} files needed")
        queue += sorted(imported(found.values()) - seen)
    if missing:
        where = f"{runtime}" if runtime is not None else "none in the folder's parent folders"
        named = [m if m in direct or m != "tritonkit" else "triton (through tritonkit)"
                 for m in sorted(missing)]
        raise PracticeError(
            f"the code imports {', '.join(named)}, the handbook's own runtime, which "
            f"is taken from the clone's practice/runtime/ at import time (looked there: {where}); "
            "import the folder from inside a clone of the handbook"
        )
    return files


def module_names(files: Iterable[str]) -> list[str]:
    """The top-level module names of runtime file paths (``gpusim.py``, ``pkg/__init__.py``)."""
    return sorted({path.split("/")[0].removesuffix(".py") for path in files})


def package_files(package_dir: Path | str) -> dict[str, str]:
    """The runtime files stored in a practice package (path under ``runtime/`` -> text)."""
    root = Path(package_dir) / PACKAGE_DIR
    if not root.is_dir():
        return {}
    return {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(root.rglob("*.py")) if path.is_file() and not path.is_symlink()}


def sandbox_files(files: dict[str, str]) -> dict[str, str]:
    """What the student's sandbox gets: the package's runtime files, plus ``triton.py`` (the
    emulation) when tritonkit is among them."""
    out = dict(files)
    if ("tritonkit.py" in files or "tritonkit/__init__.py" in files) and "triton.py" not in files:
        out["triton.py"] = TRITON_STUB
    return out

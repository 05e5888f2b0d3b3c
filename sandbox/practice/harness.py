"""Practice folders whose test is a program (torch-free: the web process imports this module).

A C++ folder holds ``test.cpp`` (with ``starter.cpp`` and ``solution.cpp``); a CUDA C++ folder
holds ``test.cu`` and no ``test.py`` (with ``starter.cu`` and ``solution.cu``). The test includes
the student's file as ``user.cpp`` / ``user.cu`` and prints one ``CASE <name> PASS|FAIL|ERROR
[detail]`` line per case; the harness headers it includes by a quoted name (the handbook's
``judge.hpp`` / ``judge.cuh``) come from the folder itself or, as for the texts, from the
user's clone (``practice/runtime/cpp/`` or ``practice/runtime/cuda/``, found above the folder)
at import time, never from this repository. A C++ folder may ask for ThreadSanitizer
(``sanitize: thread``; AddressSanitizer + UBSan by default); the clone's ``tsan.supp`` beside
the C++ header travels with it.

The package (:func:`write_files`) keeps the test program and its headers under ``harness/``;
the student's files keep their names (``starter.cpp`` / ``solution.cpp``, or ``.cu``): the
package's ``language`` is "cpp" or "cuda" (sandbox/grader/package.py), as is ``[practice]
harness``. (A package imported before it had a language holds them as ``starter.py`` /
``solution.py`` and loads as before.) The cases are what the solution's run prints: the package
check records them (:func:`record_cases`); names starting ``example`` are public (none: the
first one).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sandbox.practice import PracticeError

# harness language -> (suffix, the runtime folder of the clone its headers come from)
LANGUAGES = {"cpp": (".cpp", "cpp"), "cuda": (".cu", "cuda")}
SANITIZE = ("", "address", "thread")
HARNESS_DIR = "harness"
MAX_HEADERS = 8
_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_PLAIN_NAME = re.compile(r"^[\w][\w.-]{0,80}$")
TIME_S = 60.0  # the whole test program (the package's limits.time_s)


def language_of(path: Path) -> str:
    """"cpp" for a folder with test.cpp, "cuda" for one with test.cu and no test.py, else ""."""
    if (path / "test.cpp").is_file():
        return "cpp"
    if (path / "test.cu").is_file() and not (path / "test.py").is_file():
        return "cuda"
    return ""


def main_name(language: str) -> str:
    return "test" + LANGUAGES[language][0]


def student_name(language: str) -> str:
    return "user" + LANGUAGES[language][0]


def _runtime_dirs(path: Path, language: str) -> list[Path]:
    """The clone's ``practice/runtime/<cpp|cuda>/`` folders above ``path``, nearest first."""
    found = []
    for ancestor in list(path.resolve().parents)[:6]:
        for candidate in (ancestor / "runtime" / LANGUAGES[language][1],
                          ancestor / "practice" / "runtime" / LANGUAGES[language][1]):
            if candidate.is_dir() and candidate not in found:
                found.append(candidate)
    return found


def headers(path: Path, language: str, test: str, max_bytes: int) -> dict[str, str]:
    """Name -> text of each header the test includes by a quoted name (not the student's file),
    from the folder or the clone's runtime folder; tsan.supp beside them when there is one.
    PracticeError naming a header found nowhere."""
    wanted = [n for n in dict.fromkeys(_QUOTED_INCLUDE.findall(test))
              if n != student_name(language)]
    places = [path, *_runtime_dirs(path, language)]
    out: dict[str, str] = {}
    queue = list(wanted)
    while queue:
        name = queue.pop(0)
        if name in out:
            continue
        if not _PLAIN_NAME.match(name):
            raise PracticeError(f"{main_name(language)} includes {name!r}: a harness header must "
                                "be a plain file name")
        source = next((p / name for p in places if (p / name).is_file()), None)
        if source is None:
            raise PracticeError(
                f"{main_name(language)} includes {name!r}, found neither in the folder nor in "
                f"the clone's practice/runtime/{LANGUAGES[language][1]}/ (import from the "
                "handbook's clone)")
        if source.stat().st_size > max_bytes or len(out) >= MAX_HEADERS:
            raise PracticeError(f"{name}: too large, or too many harness headers")
        out[name] = source.read_text(encoding="utf-8")
        queue += [n for n in _QUOTED_INCLUDE.findall(out[name]) if n not in out]
    if language == "cpp":
        supp = next((p / "tsan.supp" for p in places[1:] if (p / "tsan.supp").is_file()), None)
        if supp is not None and supp.stat().st_size <= max_bytes:
            out["tsan.supp"] = supp.read_text(encoding="utf-8")
    return out


def sanitize_of(meta: dict[str, object], language: str) -> str:
    value = str(meta.get("sanitize") or "").strip()
    if value not in SANITIZE or (value and language != "cpp"):
        raise PracticeError(f"problem.md: sanitize {value!r}: only `sanitize: thread` (or "
                            "address) is known, for a C++ exercise")
    return value


def manifest_lines(language: str, sanitize: str, files: list[str]) -> list[str]:
    """The ``[practice]`` keys of a harness package (after ``[practice]``)."""
    quoted = ", ".join(f'"{n}"' for n in files)
    return [f'harness = "{language}"', f'sanitize = "{sanitize}"',
            f'main = "{main_name(language)}"', f"files = [{quoted}]"]


def write_files(target: Path, language: str, test: str, files: dict[str, str]) -> None:
    folder = target / HARNESS_DIR
    folder.mkdir()
    (folder / main_name(language)).write_text(test, encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (target / "tests.py").write_text(
        f"# The tests of this exercise are the program {HARNESS_DIR}/{main_name(language)} "
        "(CASE lines), compiled with the student's file in the sandbox.\n")


def public_of(names: list[str]) -> list[str]:
    public = [n for n in names if n.startswith(("example", "test_example"))]
    return public or names[:1]


def record_cases(package_dir: Path, printed: object) -> None:
    """Write the cases the solution's run printed into problem.toml (tests, public)."""
    names = [str(n) for n in printed] if isinstance(printed, list) else []
    toml = package_dir / "problem.toml"
    lines = toml.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("tests = "):
            lines[i] = f"tests = {json.dumps(names)}"  # a JSON list of strings is TOML
        elif line.startswith("public = "):
            lines[i] = f"public = {json.dumps(public_of(names))}"
    toml.write_text("\n".join(lines), encoding="utf-8")

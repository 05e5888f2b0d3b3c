"""What a student's exception becomes in the trusted grader (practice problems): an exception of
the same built-in class (``raises(ValueError)`` works; a class of the student's own becomes its
nearest built-in base), and the text a test's failure shows (a bare ``assert``'s line, the
student's traceback with the harness's frames left out).
"""

from __future__ import annotations

import builtins
import traceback
from typing import Any

TESTS_FILENAME = "tests.py"  # the name a package's test.py runs under in the grader


def builtin_base(cls: type[BaseException]) -> type[BaseException]:
    """The first of Python's own exception classes in ``cls``'s MRO (Exception at least)."""
    for base in cls.__mro__:
        if getattr(builtins, base.__name__, None) is base and issubclass(base, Exception):
            return base
    return Exception


_EXCEPTION_CLASSES: dict[tuple[str, type], type[BaseException]] = {}


def student_exception(obs: dict[str, Any]) -> BaseException:
    """An exception standing for the one the student's code raised: of a class named like
    theirs, derived from the first of Python's own exceptions in its MRO (so ``raises`` and
    ``except ValueError`` in a test behave as with the real one). ``_practice_obs`` keeps the
    observation (its traceback is the student's)."""
    name = str(obs["type"]).rsplit(".", 1)[-1] or "Exception"
    base: type[BaseException] = Exception
    for candidate in obs.get("mro", []):
        found = getattr(builtins, str(candidate), None)
        if isinstance(found, type) and issubclass(found, BaseException):
            base = found
            break
    if base in (KeyboardInterrupt, SystemExit, GeneratorExit, BaseException):
        base = Exception
    key = (name, base)
    cls = _EXCEPTION_CLASSES.get(key)
    if cls is None:
        if name == base.__name__:
            cls = base
        else:
            try:
                cls = type(name, (base,), {"__module__": "solution"})
            except TypeError:
                cls = base
        _EXCEPTION_CLASSES[key] = cls
    try:
        exc = cls(str(obs.get("message", "")))
    except Exception:  # noqa: BLE001 - an exception class with another signature
        exc = Exception(str(obs.get("message", "")))
    exc._practice_obs = obs  # type: ignore[attr-defined]
    return exc


def bare_assert_text(exc: BaseException, source_lines: list[str]) -> str:
    """For an assert without a message: the failing line of the test."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == TESTS_FILENAME and frame.lineno:
            line = source_lines[frame.lineno - 1].strip() if frame.lineno <= len(source_lines) else ""
            return f"assertion failed: {line}"
    return "assertion failed"


def student_traceback(obs: dict[str, Any]) -> str:
    """The student's traceback without the harness's frames."""
    lines = str(obs.get("traceback", "")).splitlines()
    out: list[str] = []
    skip_next = False
    for line in lines:
        if skip_next:
            skip_next = False
            continue
        if line.strip().startswith("File ") and (", in __pj_" in line or ", in pj_" in line):
            skip_next = True
            continue
        out.append(line)
    return "\n".join(out)

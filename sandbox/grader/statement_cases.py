"""Statement cases: each sentence of a statement that constrains the output, mapped to its tests.

A built-in package lists, in problem.toml, the sentences (or clauses) of its statement.md that
say what must happen, each with the test cases that prove it::

    [[statement_cases]]
    says = "An id that is neither `pad_id` nor in $[0, V)$ raises `IndexError`"
    cases = ["bad_id_too_large", "bad_id_negative"]

``says`` is quoted from statement.md as written (Markdown and math included; runs of whitespace,
line breaks too, compare as one space); every name of ``cases`` is a case of tests.py and at
least one of them is hidden, so a student who reads the statement cannot pass by guessing at
what the public examples leave out. The package check (sandbox/grader/check.py) reports the table as
"static: statement cases". Framework-free and torch-free.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The repository's own catalog: its packages must carry the table (an instructor's upload, or
# an imported practice folder, need not). Recognised by folder name, so that a copy of a
# built-in package (the package check's confined grader unpacks one under a temporary folder)
# is held to the same rule.
CATALOG_DIR = Path(__file__).resolve().parents[2] / "problems"
MAX_SAYS_CHARS = 1000


@dataclass(frozen=True)
class StatementCase:
    says: str  # a sentence or clause of statement.md, verbatim
    cases: tuple[str, ...]  # the tests.py cases that prove it (at least one hidden)


def parse_statement_cases(raw: Any) -> tuple[StatementCase, ...] | None:
    """problem.toml's ``[[statement_cases]]`` array (None when the package has none).

    Raises ValueError with what to fix when the table is malformed (the loader adds the file).
    """
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ValueError("`statement_cases` must be an array of tables ([[statement_cases]] "
                         "with says = \"...\" and cases = [\"...\"])")
    entries: list[StatementCase] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise ValueError(f"statement_cases[{i}] must be a table with `says` and `cases`")
        unknown = sorted(set(entry) - {"says", "cases"})
        if unknown:
            raise ValueError(f"statement_cases[{i}]: unknown key {unknown[0]!r} (known: says, cases)")
        says, cases = entry.get("says"), entry.get("cases")
        if not isinstance(says, str) or not says.strip():
            raise ValueError(f"statement_cases[{i}] needs `says`: a sentence of statement.md")
        if len(says) > MAX_SAYS_CHARS:
            raise ValueError(f"statement_cases[{i}]: `says` is over {MAX_SAYS_CHARS} characters; "
                             "quote one sentence or clause")
        if not (isinstance(cases, list) and cases and all(isinstance(c, str) and c for c in cases)):
            raise ValueError(f"statement_cases[{i}] ({_short(says)}) needs `cases`: a non-empty "
                             "list of case names of tests.py")
        entries.append(StatementCase(says, tuple(cases)))
    return tuple(entries)


def is_catalog_folder(folder_name: str, catalog_dir: Path = CATALOG_DIR) -> bool:
    """Whether a package of this folder name is one of the repository's built-in problems."""
    return (catalog_dir / folder_name / "problem.toml").is_file()


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _short(says: str, limit: int = 60) -> str:
    text = _collapse(says)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def statement_cases_problems(
    entries: tuple[StatementCase, ...] | None,
    statement_md: str,
    cases: Iterable[tuple[str, bool]],
    *,
    required: bool,
) -> tuple[bool, str]:
    """(ok, detail) of the check item: ``cases`` are (name, public) of tests.py's loaded cases.

    Fails on a missing table where ``required``, a ``says`` not in the statement, an unknown
    case name and an entry whose cases are all public; the detail counts what passed
    ("14 sentences -> 31 cases") or lists what to fix.
    """
    if entries is None:
        if required:
            return False, ("no [[statement_cases]] table: map each sentence of statement.md that "
                           "constrains the output or an error to its hidden cases "
                           "(problems/README.md, \"Statement cases\")")
        return True, "no table (not required outside the built-in catalog)"
    if not entries:
        return (not required), "an empty [[statement_cases]] table"
    public = dict(cases)
    statement = _collapse(statement_md)
    problems: list[str] = []
    named: set[str] = set()
    for entry in entries:
        if _collapse(entry.says) not in statement:
            problems.append(f"{_short(entry.says)} is not in statement.md (quote it as written)")
        unknown = [name for name in entry.cases if name not in public]
        if unknown:
            problems.append(f"{_short(entry.says)}: no case {', '.join(unknown)} in tests.py")
        elif all(public[name] for name in entry.cases):
            problems.append(f"{_short(entry.says)}: no hidden case (public examples only)")
        named.update(entry.cases)
    if problems:
        return False, "; ".join(problems)
    return True, f"{len(entries)} sentences -> {len(named)} cases"

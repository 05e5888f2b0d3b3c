"""Hints keyed to the failing check: the ladder rule (problem.toml's ``[hints]`` is parsed by
sandbox/grader/manifest.py, ``parse_hints``, into ``ProblemPackage.hints``).

An author attaches a ladder of hints to a check: one case (``check = "case_name"``), every case
of a function (``check = "fn:embed"``) or every case carrying a tag (``check = "tag:padding"``,
``Case(..., tags=("padding",))`` in tests.py)::

    [hints]
    enabled = true      # false switches the hints of this problem off
    after = 2           # distinct failing Submits (by code_hash) before each next hint
    cooldown_s = 120    # and at least this long since the last hint of that check was shown

    [[hints.ladders]]
    check = "fn:embed"
    ladder = ["first, gentle hint", "second, more direct hint"]

Cases are matched against stored test results by name. The case index is read statically from
tests.py (the web process has no torch): a ``Case(...)`` call's name literal, or an f-string
name read as a pattern, its ``fn`` literal and its ``tags`` literal tuple.

The ladder rule (``next_rung_due``) is pure: a submission counts toward a check when it failed
one of the check's cases, and only if its code hash was not counted for that check before, so
resubmitting the same wrong code, or the same code with other comments or spacing (the hash is
of its tokens), does not climb the ladder. Framework-free and torch-free.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from collections.abc import Iterable, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sandbox.grader import syntax
from sandbox.grader.contracts import NEUTRAL_VERDICTS, PASSING_VERDICTS
from sandbox.grader.manifest import HintSpec, PackageError
from sandbox.grader.package import ProblemPackage


@dataclass(frozen=True)
class CaseInfo:
    pattern: str  # a regular expression matching the case's test name
    fn: str
    tags: tuple[str, ...]
    public: bool

    def matches(self, name: str) -> bool:
        return re.fullmatch(self.pattern, name) is not None


def _name_pattern(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = [
            re.escape(v.value) if isinstance(v, ast.Constant) and isinstance(v.value, str) else ".+"
            for v in node.values
        ]
        return "".join(parts)
    return None


def case_index(tests_py: Path) -> list[CaseInfo]:
    """Every ``Case(...)`` of tests.py whose name is a literal or an f-string, in source order."""
    tree = syntax.parse(tests_py.read_text(), filename=str(tests_py))
    found: list[tuple[tuple[int, int], CaseInfo]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case"):
            continue
        kwargs = {k.arg: k.value for k in node.keywords if k.arg}
        name = kwargs.get("name") or (node.args[0] if node.args else None)
        fn = kwargs.get("fn") or (node.args[1] if len(node.args) > 1 else None)
        pattern = _name_pattern(name) if name is not None else None
        if pattern is None:
            continue
        tags: tuple[str, ...] = ()
        raw_tags = kwargs.get("tags")
        if raw_tags is not None:
            try:
                value = ast.literal_eval(raw_tags)
            except ValueError:
                raise PackageError(f"{tests_py}:{node.lineno}: Case tags must be a literal tuple") from None
            tags = tuple(str(t) for t in value)
        public = kwargs.get("public")
        found.append((
            (node.lineno, node.col_offset),
            CaseInfo(
                pattern=pattern,
                fn=fn.value if isinstance(fn, ast.Constant) and isinstance(fn.value, str) else "",
                tags=tags,
                public=isinstance(public, ast.Constant) and public.value is True,
            ),
        ))
    return [info for _, info in sorted(found, key=lambda item: item[0])]


def check_cases(check: str, cases: list[CaseInfo]) -> list[CaseInfo]:
    """The cases a check names (case name, ``fn:`` or ``tag:``)."""
    if check.startswith("fn:"):
        return [c for c in cases if c.fn == check[3:]]
    if check.startswith("tag:"):
        return [c for c in cases if check[4:] in c.tags]
    return [c for c in cases if c.matches(check)]


def unknown_checks(spec: HintSpec, cases: list[CaseInfo]) -> list[str]:
    """Checks that name no case of the package (an authoring mistake)."""
    return [ladder.check for ladder in spec.ladders if not check_cases(ladder.check, cases)]


def failing_names(tests: Iterable[dict[str, Any]]) -> set[str]:
    """Names of the tests a stored result failed, by the judge's own table (contracts.py): a
    skipped test did not fail, it did not run."""
    not_failed = PASSING_VERDICTS | NEUTRAL_VERDICTS
    return {str(t.get("name")) for t in tests if t.get("verdict") not in not_failed and t.get("name")}


def _fails(matched: list[CaseInfo], failed: Set[str]) -> bool:
    return any(case.matches(name) for case in matched for name in failed)


def fails_check(check: str, cases: list[CaseInfo], failed: Set[str]) -> bool:
    return _fails(check_cases(check, cases), failed)


def check_is_public(check: str, cases: list[CaseInfo]) -> bool:
    """A check may be named to the student only when every case it covers is public."""
    matched = check_cases(check, cases)
    return bool(matched) and all(case.public for case in matched)


# Tokens that carry no program: comments, blank lines, the encoding and the end.
_NO_PROGRAM = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})
# Tokens whose text is layout only: the block structure stays, the spaces (or tabs) go.
_LAYOUT = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})
# Tokenizing costs about 1 ms per KiB and a problem page hashes every failed Submit of the
# student: each text is tokenized once per process (keyed by its sha256; cleared when full).
_TOKEN_HASHES: dict[str, str] = {}
_TOKEN_HASHES_MAX = 4096


def _token_hash(text: str) -> str | None:
    """sha256 of the program's token stream without comments and layout; None when the text
    does not tokenize (an unclosed bracket or string, a bad dedent)."""
    digest = hashlib.sha256()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in _NO_PROGRAM:
                continue
            value = "" if token.type in _LAYOUT else token.string
            digest.update(f"{token.type}:{len(value)}:{value}".encode("utf-8", "surrogatepass"))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return digest.hexdigest()


def code_hash(code: str) -> str:
    """What makes two Submits the same attempt for the ladder: the sha256 of the program's
    tokens, so a resubmit that only adds, removes or edits comments, blank lines or spaces (or
    re-saves with other line endings) counts once. Code that does not tokenize falls back to
    its text with line endings unified and trailing whitespace dropped."""
    lines = [line.rstrip() for line in code.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    text = "\n".join(lines).strip("\n")
    raw = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    known = _TOKEN_HASHES.get(raw)
    if known is None:
        tokens = _token_hash(text + "\n")
        known = f"tokens:{tokens}" if tokens is not None else f"text:{raw}"
        if len(_TOKEN_HASHES) >= _TOKEN_HASHES_MAX:
            _TOKEN_HASHES.clear()
        _TOKEN_HASHES[raw] = known
    return known


@dataclass(frozen=True)
class Attempt:
    """One finished Submit of the student, oldest first."""

    code_hash: str
    at: datetime
    failed: frozenset[str]  # test names it failed


def next_rung_due(
    check: str,
    cases: list[CaseInfo],
    attempts: list[Attempt],
    shown_at: list[datetime],
    ladder_len: int,
    *,
    after: int,
    cooldown: timedelta,
    now: datetime,
) -> bool:
    """Whether the next hint of ``check`` is due now.

    ``shown_at`` holds when each rung already shown was shown (rung 0 first). The next rung is
    due when ``after`` distinct codes failed the check since the last rung was shown (a code
    counted once per check, ever), and ``cooldown`` has passed since the last rung was shown or,
    for the first rung, since the first counted failure.
    """
    rung = len(shown_at)
    if rung >= ladder_len:
        return False
    since = shown_at[-1] if shown_at else None
    matched = check_cases(check, cases)  # once, not per attempt
    seen: set[str] = set()
    fresh: list[datetime] = []
    for attempt in attempts:
        if not _fails(matched, attempt.failed) or attempt.code_hash in seen:
            continue
        seen.add(attempt.code_hash)
        if since is None or attempt.at > since:
            fresh.append(attempt.at)
    if len(fresh) < after:
        return False
    start = since if since is not None else fresh[0]
    return now - start >= cooldown


def hinted_checks_failed(spec: HintSpec, cases: list[CaseInfo], failed: set[str]) -> list[str]:
    """The checks with a ladder that a result failing ``failed`` (test names) fails."""
    return [ladder.check for ladder in spec.ladders if fails_check(ladder.check, cases, failed)]


def package_hint_items(package: ProblemPackage) -> tuple[HintSpec, list[CaseInfo], str]:
    """The package's hints (parsed at load), its case index and what is wrong with them ("" when
    nothing)."""
    try:
        cases = case_index(package.path / "tests.py")
    except PackageError as exc:
        return HintSpec(enabled=False), [], str(exc)
    unknown = unknown_checks(package.hints, cases)
    return package.hints, cases, f"checks that name no case: {', '.join(unknown)}" if unknown else ""

"""The code of two submissions side by side (difflib, on the server): rows of a two-column
table, the changed parts of a changed line marked, long unchanged runs folded to a count.

The rows hold plain text only: the template escapes it like any other text (a submission's
code is the author's input, never markup).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

CONTEXT = 3  # unchanged lines kept around each change
MAX_INLINE_CHARS = 400  # a longer changed line is marked whole, not word by word
MIN_INLINE_RATIO = 0.5  # two lines less alike than this are marked whole: a rewrite, not an edit
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _whole(text: str, changed: bool) -> list[dict[str, Any]]:
    return [{"text": text, "changed": changed}] if text else []


def _inline(old: str, new: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The two lines cut into words, the differing words marked; lines too long or too unlike
    to read that way are marked whole."""
    if len(old) > MAX_INLINE_CHARS or len(new) > MAX_INLINE_CHARS:
        return _whole(old, True), _whole(new, True)
    x, y = _TOKEN.findall(old), _TOKEN.findall(new)
    matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
    if matcher.ratio() < MIN_INLINE_RATIO:
        return _whole(old, True), _whole(new, True)
    a: list[dict[str, Any]] = []
    b: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        a += _whole("".join(x[i1:i2]), tag != "equal")
        b += _whole("".join(y[j1:j2]), tag != "equal")
    return a, b


def _row(kind: str, old_no: int | None, old: Any, new_no: int | None, new: Any) -> dict[str, Any]:
    return {"kind": kind, "old_no": old_no, "old": old, "new_no": new_no, "new": new}


def code_diff(old_code: str, new_code: str, context: int = CONTEXT) -> dict[str, Any]:
    """``rows`` (kind "equal", "delete", "insert", "replace" or "skip"; line numbers from 1, None
    on a side without the line; "skip" rows have ``count`` instead), ``added`` and
    ``removed`` (lines), and ``same`` (the two codes are equal)."""
    old_lines, new_lines = old_code.splitlines(), new_code.splitlines()
    rows: list[dict[str, Any]] = []
    added = removed = 0
    opcodes = difflib.SequenceMatcher(None, old_lines, new_lines).get_opcodes()
    for n, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            keep_head = context if n > 0 else 0
            keep_tail = context if n < len(opcodes) - 1 else 0
            if i2 - i1 > keep_head + keep_tail + 1:
                spans = [(i1, i1 + keep_head), (i2 - keep_tail, i2)]
                folded = (i2 - keep_tail) - (i1 + keep_head)
            else:
                spans, folded = [(i1, i2)], 0
            for k, (start, stop) in enumerate(spans):
                if k == 1:
                    rows.append({"kind": "skip", "count": folded})
                for i in range(start, stop):
                    j = j1 + (i - i1)
                    text = _whole(old_lines[i], False)
                    rows.append(_row("equal", i + 1, text, j + 1, text))
            continue
        removed += i2 - i1
        added += j2 - j1
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            has_old, has_new = i < i2, j < j2
            if has_old and has_new:
                a, b = _inline(old_lines[i], new_lines[j])
                rows.append(_row("replace", i + 1, a, j + 1, b))
            elif has_old:
                rows.append(_row("delete", i + 1, _whole(old_lines[i], True), None, []))
            else:
                rows.append(_row("insert", None, [], j + 1, _whole(new_lines[j], True)))
    return {"rows": rows, "added": added, "removed": removed, "same": old_code == new_code}

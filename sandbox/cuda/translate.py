"""CUDA C++ source -> C++17 for the CPU emulation (tj_cuda.h), keeping the student's line numbers.

Three rewrites, each on the student's own lines (a rewrite never adds or removes a newline, and
the header comes in by the compiler's ``-include tj_cuda.h``, so line N of the output is line N
of the student's file: a compiler error, its source excerpt and an emulator report name the line
the student wrote):

* ``kernel<<<grid, block[, shmem[, stream]]>>>(args)`` becomes
  ``::tj::launcher(kernel, "kernel", grid, block[, ...])(args)``;
* ``__shared__ T name[N][M];`` (and ``extern __shared__ T name[];``, and scalars) becomes a
  per-block array reached through ``::tj::View``, which the race detector and bounds checks see;
* ``__noinline__`` becomes GCC's attribute (the header cannot define it: glibc uses the name).

Comments and string literals are never rewritten. Pure text processing: no compiler, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = "tj_cuda.h"

_IDENT = re.compile(r"[A-Za-z_]\w*")
_QUALIFIERS = re.compile(r"\b(?:extern|static|volatile|__shared__)\b|\b(?:__align__|alignas)\s*\([^)]*\)")
_HEAD = re.compile(r"^(.*?)([*&\s]*)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$", re.S)
_DECLARATOR = re.compile(r"^\s*([*&\s]*)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$")


class TranslateError(ValueError):
    """The source has a construct the emulation cannot take; ``line`` is the student's line."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


def mask_code(src: str) -> str:
    """The source with comments and string/char literals blanked (same length, newlines kept)."""
    out = list(src)
    i, n = 0, len(src)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            blank(i + 1, j - 1)
            i = j
        else:
            i += 1
    return "".join(out)


def _line_of(src: str, pos: int) -> int:
    return src.count("\n", 0, pos) + 1


def _match_forward(code: str, pos: int, open_c: str, close_c: str) -> int:
    """Index just past the bracket that closes the one at ``pos``; -1 if none."""
    depth = 0
    for k in range(pos, len(code)):
        if code[k] == open_c:
            depth += 1
        elif code[k] == close_c:
            depth -= 1
            if depth == 0:
                return k + 1
    return -1


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets (template angle brackets count only in the type part)."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def _launch_edits(src: str, code: str) -> list[_Edit]:
    edits = []
    for m in re.finditer(r"<<<", code):
        start_cfg = m.end()
        close = code.find(">>>", start_cfg)
        line = _line_of(src, m.start())
        if close < 0:
            raise TranslateError("a kernel launch `<<<` without its closing `>>>`", line)
        # The callee: an identifier (maybe qualified) and maybe template arguments, before <<<.
        k = m.start()
        while k > 0 and code[k - 1].isspace():
            k -= 1
        end_callee = k
        if k > 0 and code[k - 1] == ">":
            depth = 0
            while k > 0:
                k -= 1
                if code[k] == ">":
                    depth += 1
                elif code[k] == "<":
                    depth -= 1
                    if depth == 0:
                        break
        while k > 0 and (code[k - 1].isalnum() or code[k - 1] in "_:"):
            k -= 1
        callee = src[k:end_callee]
        if not _IDENT.match(callee.lstrip(":")):
            raise TranslateError("a kernel launch `<<<` must follow a kernel's name", line)
        p = close + 3
        while p < len(code) and code[p].isspace():
            p += 1
        if p >= len(code) or code[p] != "(":
            raise TranslateError("a kernel launch needs its arguments in (...) after `>>>`", line)
        args_end = _match_forward(code, p, "(", ")")
        if args_end < 0:
            raise TranslateError("the arguments of a kernel launch are not closed", line)
        name = " ".join(callee.split()).replace('"', "")
        config = src[start_cfg:close]
        text = f'::tj::launcher({callee}, "{name}",{config})' + src[p:args_end]
        gap = src[close + 3 : p]  # whitespace between >>> and (: keep its newlines
        text += "\n" * gap.count("\n")
        edits.append(_Edit(k, args_end, text))
    return edits


def _statement_bounds(code: str, pos: int) -> tuple[int, int]:
    start = max(code.rfind(c, 0, pos) for c in ";{}") + 1
    # Skip a preprocessor line or a label that ended before the declaration.
    nl = code.rfind("\n", start, pos)
    if nl >= 0 and code[start:nl].strip().startswith("#"):
        start = nl + 1
    end = code.find(";", pos)
    return start, end


def _shared_edits(src: str, code: str) -> list[_Edit]:
    edits: list[_Edit] = []
    seen: set[int] = set()
    for m in re.finditer(r"\b__shared__\b", code):
        start, end = _statement_bounds(code, m.start())
        line = _line_of(src, m.start())
        if start in seen:
            continue
        seen.add(start)
        if end < 0:
            raise TranslateError("a __shared__ declaration without its `;`", line)
        # Start at the declaration's first token: comments and blank lines before it stay put.
        start += len(code[start:end]) - len(code[start:end].lstrip())
        stmt = code[start:end]
        depth = code.count("{", 0, start) - code.count("}", 0, start)
        if depth <= 0:  # namespace scope: a plain global (one for all blocks), not tracked
            edits.append(_Edit(m.start(), m.end(), " " * len("__shared__")))
            continue
        is_extern = re.search(r"\bextern\b", stmt) is not None
        body = _QUALIFIERS.sub(" ", stmt)
        if "=" in body:
            raise TranslateError("a __shared__ variable cannot have an initializer", line)
        decls = _split_top(body)
        head = _HEAD.match(decls[0].strip())
        if not head or not head.group(1).strip():
            raise TranslateError("cannot read this __shared__ declaration", line)
        base_type = " ".join(head.group(1).split())
        decls[0] = head.group(2) + head.group(3) + head.group(4)
        out = []
        for d in decls:
            dm = _DECLARATOR.match(d)
            if dm is None:
                raise TranslateError("cannot read this __shared__ declaration", line)
            stars, name, dims_text = dm.group(1).strip(), dm.group(2), dm.group(3)
            ctype = f"{base_type}{stars}"
            dims = [x.strip() for x in re.findall(r"\[([^\]]*)\]", dims_text)]
            site = f"tj_site_{name}"
            if is_extern:
                if len(dims) != 1 or dims[0]:
                    raise TranslateError("extern __shared__ takes one empty dimension: name[]", line)
                out.append(
                    f'static ::tj::Site {site}("{name}", sizeof({ctype}), {{0}}, true); '
                    f"::tj::View<{ctype}, 1> {name} = ::tj::shared_view<{ctype}, 1>({site});"
                )
            elif dims:
                if any(not x for x in dims) or len(dims) > 4:
                    raise TranslateError("a __shared__ array needs 1 to 4 sized dimensions", line)
                k = len(dims)
                out.append(
                    f'static ::tj::Site {site}("{name}", sizeof({ctype}), {{{", ".join(dims)}}}); '
                    f"::tj::View<{ctype}, {k}> {name} = ::tj::shared_view<{ctype}, {k}>({site});"
                )
            else:
                out.append(
                    f'static ::tj::Site {site}("{name}", sizeof({ctype}), {{}}); '
                    f"auto&& {name} = ::tj::shared_scalar<{ctype}>({site});"
                )
        text = " ".join(out) + "\n" * src.count("\n", start, end + 1)
        edits.append(_Edit(start, end + 1, text))
    return edits


def translate(source: str) -> str:
    """The emulation's C++ for ``source``, line for line; raises TranslateError (with the line).

    Compile it under the student's file name with ``-include tj_cuda.h``."""
    code = mask_code(source)
    asm = re.search(r"\b(?:asm|__asm__|__asm)\b", code)
    if asm:
        raise TranslateError("inline assembly (asm) is PTX for a GPU and cannot run on the CPU "
                             "emulation; write it in C++ (intrinsics such as __shfl_sync work)",
                             _line_of(source, asm.start()))
    edits = sorted(_launch_edits(source, code) + _shared_edits(source, code), key=lambda e: e.start)
    for m in re.finditer(r"\b__noinline__\b", code):
        edits.append(_Edit(m.start(), m.end(), "__attribute__((noinline))"))
    edits.sort(key=lambda e: e.start)
    out, pos = [], 0
    for e in edits:
        if e.start < pos:
            raise TranslateError("a kernel launch inside a __shared__ declaration", _line_of(source, e.start))
        out.append(source[pos : e.start])
        out.append(e.text)
        pos = e.end
    out.append(source[pos:])
    return "".join(out)

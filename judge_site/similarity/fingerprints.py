"""Token fingerprints of Python source, for similarity between students' solutions.

Framework-free (no Django). The source is tokenized with Pygments (``PythonTokens``, a lexer of
ours on Pygments' RegexLexer) and normalized, so that what a copier changes without changing the
program does not hide the copy:

- comments, docstrings, whitespace and line breaks are dropped (reformatting is invisible);
- the names a student chooses (variables, parameters, functions, classes, imported aliases)
  become one class ``V``; numbers become ``N``; a string (any quotes, f-strings' text) ``S``;
- what a copier cannot rename without changing the program stays as written: keywords,
  operators, builtins (``len``, ``range``, ``ValueError``, ``self``), imported module paths
  (``import torch.nn``) and attribute names after a dot (``torch.zeros`` reads ``V . zeros``);
- a trailing comma before a closing bracket is dropped (formatters add and remove them).

Then, as MOSS does (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003): every run of
``KGRAM`` consecutive tokens is hashed, and in every window of ``WINDOW`` consecutive hashes the
smallest is kept (the rightmost on ties). Two documents sharing a run of at least
``KGRAM + WINDOW - 1`` tokens share at least one kept hash, whatever surrounds it; runs shorter
than ``KGRAM`` tokens are never matched (they are too common to mean anything). Reordered
functions keep their fingerprints: only the few k-grams across a boundary change.

Hashes are stable across processes and Python versions (BLAKE2 of the normalized tokens), so a
run's stored boilerplate set still applies when a page shows a pair later.
"""

from __future__ import annotations

import builtins
import hashlib
import keyword
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pygments.lexer import RegexLexer
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Literal,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
)

KGRAM = 10
WINDOW = 5
# Hashes are 48-bit: far more than the k-grams of a problem's documents (collisions negligible),
# and exact in JSON for any reader.
_HASH_BYTES = 6

# Names a copier cannot rename without changing the program.
_KEPT_NAMES = (Name.Builtin, Name.Exception, Name.Namespace, Name.Decorator)
_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) | {"self", "cls"}
_KEYWORDS = frozenset(keyword.kwlist)
# Whatever precedes a token and is not one: whitespace, a line continuation.
_GAP = r"(?:\s|\\\n)*"
_TRIPLE = r"""(?:\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'''(?:\\[\s\S]|[^\\])*?''')"""
_STRING = (r"(?:[rRbBuUfF]{1,2})?(?:" + _TRIPLE
           + r"""|"(?:\\[\s\S]|[^"\\\n])*"|'(?:\\[\s\S]|[^'\\\n])*')""")


def _name(lexer: object, match: re.Match[str]) -> Iterator[tuple[int, Any, str]]:
    value = match.group(1)
    kind = Keyword if value in _KEYWORDS else Name.Builtin if value in _BUILTINS else Name
    yield match.start(1), kind, value


def _imported(lexer: object, match: re.Match[str]) -> Iterator[tuple[int, Any, str]]:
    yield match.start(1), Keyword.Namespace, match.group(1)
    yield match.start(2), Name.Namespace, match.group(2)


def _token(kind: Any) -> Callable[[object, re.Match[str]], Iterator[tuple[int, Any, str]]]:
    def callback(lexer: object, match: re.Match[str]) -> Iterator[tuple[int, Any, str]]:
        yield match.start(1), kind, match.group(1)

    return callback


def _nothing(lexer: object, match: re.Match[str]) -> Iterator[tuple[int, Any, str]]:
    return iter(())


class PythonTokens(RegexLexer):
    """Python's tokens for fingerprints, as a Pygments lexer of our own. Pygments' PythonLexer
    reads the same code (its tests: the same normalized tokens on problems/ but ``>=``, which it
    splits) five times slower: it yields every run of whitespace as a token of its own (half its
    output) and tries some fifty rules before a name. Here each rule takes the whitespace before
    its token, and comments and docstrings (a triple-quoted string opening a line) yield
    nothing. Anything else, unreadable text included, lexes: a character no rule takes is an
    Error token, kept as written."""

    name = "Python tokens for similarity"
    tokens = {"root": [
        (_GAP + r"(?:#[^\n]*|(?<![^\n])[^\S\n]*(?:[rRuUbB]{1,2})?" + _TRIPLE + ")", _nothing),
        (_GAP + r"(import|from)\s+([\w.]+)", _imported),
        (_GAP + r"([^\W\d]\w*)(?![\"'])", _name),
        (_GAP + r"([.,:;()\[\]{}](?![\d.]))", _token(Punctuation)),
        (_GAP + r"(\*\*=?|//=?|>>=?|<<=?|->|:=|\.\.\.|[-+*/%@&|^<>!=]=|[-+*/%@&|^~<>=])",
         _token(Operator)),
        (_GAP + "(" + _STRING + ")", _token(String)),
        (_GAP + r"((?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)"
         r"(?:[eE][+-]?\d[\d_]*)?[jJ]?))", _token(Number)),
        (r"\s+", Text),
        (r".", Error),
    ]}


_LEXER = PythonTokens(stripnl=False, ensurenl=False)
_CLOSING = {")", "]", "}"}


@dataclass(frozen=True)
class Tokens:
    """A document's normalized tokens: ``text`` holds one character per token (its class as a
    code point), ``spans`` each token's (start, end) character offsets in the source."""

    text: str
    spans: list[tuple[int, int]]


def _symbol(value: str) -> str:
    # One code point per normalized token: a k-gram is then a plain slice of a string. Planes
    # 1 to 15 (never a surrogate, so it always encodes): two tokens of a problem's few hundred
    # distinct ones sharing a code point only merges two attribute names.
    return chr(0x10000 + zlib.crc32(value.encode()) % 0xF0000)


_SYMBOLS: dict[str, str] = {}


def _sym(value: str) -> str:
    found = _SYMBOLS.get(value)
    if found is None:
        found = _SYMBOLS[value] = _symbol(value)
    return found


# What each Pygments token type becomes, decided once per type (a type's ``in`` walks its
# parents: most of the time of a loop that asked it per token).
_IS_DROP, _IS_STRING, _IS_NAME, _IS_NAME_KEPT, _IS_NUMBER, _IS_AS_WRITTEN = range(6)
_CATEGORIES: dict[object, int] = {}


def _category(kind: object) -> int:
    found = _CATEGORIES.get(kind)
    if found is None:
        if kind in Text or kind in Comment or kind in String.Doc:
            found = _IS_DROP
        elif kind in String or kind in String.Affix:
            found = _IS_STRING
        elif kind in Name:
            found = _IS_NAME_KEPT if any(kind in family for family in _KEPT_NAMES) else _IS_NAME
        elif kind in Literal.Number:
            found = _IS_NUMBER
        else:  # keywords, operators, punctuation, and what the lexer could not read
            found = _IS_AS_WRITTEN
        _CATEGORIES[kind] = found
    return found


def normalize(source: str) -> Tokens:
    """The normalized tokens of ``source`` (any text: what Pygments cannot read it marks as
    errors, which are kept as written, so nothing raises)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    after_dot = False
    in_string = False
    comma, closing, dot = _sym(","), {_sym(c) for c in _CLOSING}, _sym(".")
    variable, number, string = _sym("V"), _sym("N"), _sym("S")
    for start, kind, value in _LEXER.get_tokens_unprocessed(source):
        category = _CATEGORIES.get(kind)
        if category is None:
            category = _category(kind)
        if category == _IS_DROP or value.isspace() or not value:
            continue
        end = start + len(value)
        if category == _IS_STRING:
            if in_string:  # one S for the pieces of one literal (and adjacent literals)
                spans[-1] = (spans[-1][0], end)
                continue
            in_string = True
            out.append(string)
            spans.append((start, end))
            after_dot = False
            continue
        in_string = False
        if category == _IS_NAME:
            symbol = _sym(value) if after_dot else variable
        elif category == _IS_NUMBER:
            symbol = number
        else:
            symbol = _sym(value)
        if symbol in closing and out and out[-1] == comma:
            out.pop()
            spans.pop()
        after_dot = symbol == dot
        out.append(symbol)
        spans.append((start, end))
    return Tokens("".join(out), spans)


def kgram_hashes(tokens: Tokens) -> list[int]:
    """The hash of every run of ``KGRAM`` tokens, by position (empty for a shorter document)."""
    text = tokens.text
    return [
        int.from_bytes(
            hashlib.blake2b(text[i : i + KGRAM].encode(), digest_size=_HASH_BYTES).digest(),
            "big",
        )
        for i in range(len(text) - KGRAM + 1)
    ]


def winnow(hashes: list[int]) -> dict[int, list[int]]:
    """The kept hashes, each with the token positions of the k-grams it was kept at."""
    kept: dict[int, list[int]] = {}
    if not hashes:
        return kept
    if len(hashes) <= WINDOW:
        low = min(range(len(hashes)), key=lambda i: (hashes[i], -i))
        kept[hashes[low]] = [low]
        return kept
    last = -1
    for left in range(len(hashes) - WINDOW + 1):
        low = left
        for i in range(left + 1, left + WINDOW):
            if hashes[i] <= hashes[low]:
                low = i
        if low != last:
            kept.setdefault(hashes[low], []).append(low)
            last = low
    return kept


@dataclass
class Document:
    """One submission's fingerprints. ``fingerprints`` is what pairs are scored on (the kept
    hashes less the boilerplate, set by ``exclude``)."""

    key: int
    tokens: Tokens
    hashes: list[int]
    kept: dict[int, list[int]]
    fingerprints: set[int] = field(default_factory=set)

    def exclude(self, boilerplate: set[int]) -> None:
        self.fingerprints = set(self.kept) - boilerplate


def document(key: int, source: str) -> Document:
    tokens = normalize(source)
    hashes = kgram_hashes(tokens)
    kept = winnow(hashes)
    return Document(key, tokens, hashes, kept, set(kept))


def starter_hashes(starter: str) -> set[int]:
    """Every k-gram of the starter code (not only the kept ones): whatever a student kept of the
    starter never counts as shared between two students."""
    return set(kgram_hashes(normalize(starter)))


def common_hashes(documents: Iterable[Document], fraction: float, minimum_documents: int) -> set[int]:
    """Kept hashes found in more than ``fraction`` of the documents: the problem's own
    boilerplate (the only sensible way to write a line), not a sign of copying. Only in a class
    of at least ``minimum_documents``: in a small one, two students are already a majority."""
    documents = list(documents)
    if len(documents) < minimum_documents:
        return set()
    counts: dict[int, int] = {}
    for doc in documents:
        for h in doc.kept:
            counts[h] = counts.get(h, 0) + 1
    limit = fraction * len(documents)
    return {h for h, n in counts.items() if n > limit}


def score(a: Document, b: Document, minimum: int) -> float:
    """Shared fingerprints over the smaller document's (0..1): 1 when the smaller one's every
    fingerprint is in the other (a copy, perhaps with code added). 0 when either has fewer than
    ``minimum`` fingerprints of its own (starter code and a line: nothing to tell apart)."""
    smaller = min(len(a.fingerprints), len(b.fingerprints))
    if smaller < minimum:
        return 0.0
    return len(a.fingerprints & b.fingerprints) / smaller

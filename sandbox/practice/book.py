"""A book of practice folders (``manage.py import_practice DIR --all``, the staff upload of a
zip holding several folders): find every practice folder under a folder, say which ones this
judge takes, and put them in the book's order. Nothing is run here and nothing is written
(framework-free: the web process imports it).

DIR may be one book (``practice/problems/llm``: its sub-folders are the exercises), several
books (``practice/problems``: one folder per book), or the handbook's clone itself (it holds
``practice/problems``). A practice folder is a folder holding ``problem.md``.

The order is the handbook's: by book (python, cpp, llm, cuda, train, serving, minisgl, cs, then
any other by name), then by the position of the folder's ``chapter`` in the book's
``<book>/mkdocs.yml`` nav when the clone holds it (chapters it does not list come after, by
name), then difficulty (简单, 中等, 困难), then slug. A folder may carry its own number
(``number: N`` in problem.md's front matter); the others are numbered in this order.

C++ folders (``test.cpp``) and CUDA C++ folders (``test.cu`` without ``test.py``) are imported
too: their test program is compiled with the student's file in the sandbox
(sandbox/practice/harness.py). A Python folder whose code imports the
handbook's own runtime (``gpusim``, ``tritonkit``, Triton through it) is imported like any
other, the runtime taken from the clone (sandbox/practice/runtime.py).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sandbox.practice import PracticeError
from sandbox.practice import folder as practice_folder

BOOK_ORDER = ("python", "cpp", "llm", "cuda", "train", "serving", "minisgl", "cs")
DIFFICULTY_RANK = {"简单": 1, "中等": 2, "困难": 3}
MAX_DEPTH = 6  # folders below DIR searched for practice folders
MAX_FOLDERS = 1000
_NAV_PART = re.compile(r"^  - ([^:]+):\s*$")
_NAV_PAGE = re.compile(r"^\s+- (?:[^:]+):\s*(\S+\.md)\s*$")


class BookError(PracticeError):
    """DIR as a whole cannot be imported (empty, no practice folder, two folders with one
    slug or one number); nothing is imported."""


@dataclass
class BookEntry:
    """One practice folder of the book, in order. ``skipped`` (a kind this judge does not run)
    or ``error`` (its problem.md cannot be read) say why it is not imported; ``number`` is the
    folder's own number (front matter), if it has one."""

    path: Path
    slug: str
    book: str
    chapter: str = ""
    difficulty: str = ""
    number: int | None = None
    skipped: str = ""
    error: str = ""

    def relative_to(self, root: Path) -> str:
        try:
            return self.path.relative_to(root).as_posix()
        except ValueError:
            return self.path.as_posix()


def problems_root(root: Path) -> Path:
    """The folder the exercises are under: the clone's ``practice/problems`` when ``root`` is
    the handbook's clone, else ``root``."""
    inner = root / "practice" / "problems"
    return inner if inner.is_dir() else root


def find_folders(root: Path) -> list[Path]:
    """Every folder under ``root`` (``root`` itself included) holding a problem.md, without
    descending into one, skipping hidden folders and links; sorted."""
    found: list[Path] = []
    base_depth = len(root.parts)
    for current, dirs, files in os.walk(root):  # links to folders are not followed
        here = Path(current)
        if "problem.md" in files and (here / "problem.md").is_file():
            found.append(here)
            if len(found) > MAX_FOLDERS:
                raise BookError(f"more than {MAX_FOLDERS} practice folders")
            dirs[:] = []
            continue
        if len(here.parts) - base_depth >= MAX_DEPTH:
            dirs[:] = []
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
    return sorted(found)


def nav_positions(mkdocs_yml: Path) -> dict[str, int]:
    """Chapter path -> position in the ``nav:`` of a book's mkdocs.yml (read as the handbook
    does: lines ``    - Title: path.md`` under ``nav:``); {} when there is none."""
    try:
        text = mkdocs_yml.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    start = text.find("\nnav:")
    if start < 0:
        return {}
    positions: dict[str, int] = {}
    for line in text[start + 1 :].splitlines()[1:]:
        if line and not line.startswith(" "):
            break
        if _NAV_PART.match(line):
            continue
        match = _NAV_PAGE.match(line)
        if match:
            positions.setdefault(match.group(1), len(positions))
    return positions


def _mkdocs_of(book_dir: Path, book: str) -> Path | None:
    """``<clone>/<book>/mkdocs.yml`` for a book folder ``<clone>/practice/problems/<book>``
    (looked for a few folders up), or None."""
    for ancestor in list(book_dir.parents)[:4]:
        candidate = ancestor / book / "mkdocs.yml"
        if candidate.is_file():
            return candidate
    return None


def _skip_reason(path: Path) -> str:
    return ""


def _own_number(value: object) -> int | None:
    if value in (None, ""):
        return None
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 10**6:
        raise PracticeError(
            f"problem.md: number {text!r} is not a problem number (a positive integer)"
        )
    return int(text)


def read_entry(path: Path, root: Path) -> BookEntry:
    """The folder's place in the book; its faults become ``error``, never an exception."""
    book = path.parent.name if path != root else ""
    entry = BookEntry(path=path, slug=path.name, book=book)
    try:
        text = (path / "problem.md").read_text(encoding="utf-8")
        if len(text.encode("utf-8")) > practice_folder.MAX_FILE_BYTES:
            raise PracticeError(f"problem.md: larger than {practice_folder.MAX_FILE_BYTES} bytes")
        meta, _ = practice_folder.parse_front_matter(text)
        entry.chapter = str(meta.get("chapter") or "")
        entry.difficulty = str(meta.get("difficulty") or "中等")
        entry.skipped = _skip_reason(path)
        entry.number = _own_number(meta.get("number"))
    except UnicodeDecodeError:
        entry.error = "problem.md: not UTF-8 text"
    except OSError as exc:
        entry.error = f"problem.md: {exc.strerror or exc}"
    except PracticeError as exc:
        entry.error = str(exc)
    return entry


def read_book(root: Path | str) -> list[BookEntry]:
    """The practice folders under ``root`` in the book's order. BookError when ``root`` is not
    a folder, is empty, holds no practice folder, or two folders share a slug or a number."""
    root = Path(root)
    if not root.is_dir():
        raise BookError(f"{root}: not a folder")
    if not any(root.iterdir()):
        raise BookError(f"{root}: the folder is empty")
    base = problems_root(root)
    folders = find_folders(base)
    if not folders:
        raise BookError(
            f"{root}: no practice folder in it (a practice folder holds problem.md, "
            "starter.py, solution.py and test.py)"
        )
    entries = [read_entry(folder, base) for folder in folders]
    by_slug: dict[str, list[str]] = {}
    by_number: dict[int, list[str]] = {}
    for entry in entries:
        by_slug.setdefault(entry.slug, []).append(entry.relative_to(base))
        if entry.number is not None and not entry.skipped and not entry.error:
            by_number.setdefault(entry.number, []).append(entry.relative_to(base))
    twice = {slug: where for slug, where in by_slug.items() if len(where) > 1}
    if twice:
        listed = "; ".join(f"{slug!r} in {', '.join(where)}" for slug, where in twice.items())
        raise BookError(f"a slug (the folder's name) must be unique in the book: {listed}")
    shared = {n: where for n, where in by_number.items() if len(where) > 1}
    if shared:
        listed = "; ".join(f"{n} in {', '.join(where)}" for n, where in shared.items())
        raise BookError(f"two folders say the same number: {listed}")
    navs: dict[Path, dict[str, int]] = {}
    for entry in entries:
        if entry.path.parent not in navs:
            mkdocs = _mkdocs_of(entry.path.parent, entry.book) if entry.book else None
            navs[entry.path.parent] = nav_positions(mkdocs) if mkdocs else {}

    def key(entry: BookEntry) -> tuple[int, str, int, str, int, str]:
        book_rank = BOOK_ORDER.index(entry.book) if entry.book in BOOK_ORDER else len(BOOK_ORDER)
        nav = navs[entry.path.parent]
        return (
            book_rank,
            entry.book,
            nav.get(entry.chapter, len(nav)),
            entry.chapter if entry.chapter not in nav else "",
            DIFFICULTY_RANK.get(entry.difficulty, 9),
            entry.slug,
        )

    return sorted(entries, key=key)

"""Import a whole book of practice folders (``manage.py import_practice DIR --all``): every
folder is numbered, checked and imported exactly as ``practice_import`` does for one folder
(solution AC, starter not, through the confined grader where judgings are confined); a folder
that fails changes nothing, the others go on. The order and the folder rules are
sandbox/practice/book.py's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judge_site.catalog.models import Problem
from judge_site.catalog.services import practice_import
from sandbox.grader.package import PackageError
from sandbox.practice import book as practice_book

logger = logging.getLogger(__name__)


def book_numbers(
    entries: list[practice_book.BookEntry], start: int | None, taken: dict[int, str],
    slugs: dict[str, int],
) -> dict[str, int]:
    """Slug -> number for the folders to import, in order. A folder's own number wins; without
    ``start`` a slug already in the catalog (``slugs``: slug -> number) keeps its number and the
    rest take the free numbers after the highest one; with ``start`` they take start, start+1, ...
    (skipping the folders' own numbers). PackageError, before anything runs, when a number
    belongs to another problem (``taken``: number -> slug) or a slug to another number."""
    plan: dict[str, int] = {}
    todo = [e for e in entries if not e.skipped and not e.error]
    own = {e.number for e in todo if e.number is not None}
    counter = start if start is not None else max([*taken, *own, 0]) + 1
    clashes: list[str] = []
    for entry in todo:
        if entry.number is not None:
            number = entry.number
        elif start is None and entry.slug in slugs:
            number = slugs[entry.slug]
        else:
            while counter in own:
                counter += 1
            number, counter = counter, counter + 1
        plan[entry.slug] = number
        holder = taken.get(number)
        if holder is not None and holder != entry.slug:
            clashes.append(f"{entry.slug} as {number}: that number belongs to problem {holder!r}")
        elif entry.slug in slugs and slugs[entry.slug] != number:
            clashes.append(
                f"{entry.slug} as {number}: that slug already belongs to problem {slugs[entry.slug]}"
            )
    if clashes:
        raise PackageError(
            "number clash with the catalog (nothing was imported; choose another --number, or "
            "none to keep each slug's number and take free ones): " + "; ".join(clashes)
        )
    return plan


def _catalog() -> tuple[dict[int, str], dict[str, int]]:
    rows = list(Problem.objects.values_list("number", "slug"))
    return {n: s for n, s in rows}, {s: n for n, s in rows}


def practice_import_book(
    root: Path | str,
    *,
    number: int | None = None,
    dest_dir: Path | str | None = None,
    backend: Any = None,
    on_folder: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Import every practice folder under ``root`` (numbered from ``number`` in the book's
    order, default: each slug's number, else the next free ones) and return one report per
    folder, in order: ``practice_import``'s report plus ``folder`` (its path under ``root``),
    ``imported``, ``seconds``, and ``error`` where it failed; a skipped folder (a kind this
    judge does not run) has ``skipped`` instead. ``on_folder`` gets each report as it is made.

    Raises PackageError, importing nothing, for a ``root`` that is not a book (empty, no
    practice folder, a slug twice, two folders with one number) or a number that clashes with
    the catalog."""
    if number is not None and number < 1:
        raise PackageError(f"number {number}: problem numbers start at 1")
    try:
        entries = practice_book.read_book(root)
    except practice_book.BookError as exc:
        raise PackageError(str(exc)) from None
    except OSError as exc:
        raise PackageError(f"{root}: {exc}") from None
    base = practice_book.problems_root(Path(root))
    taken, slugs = _catalog()
    plan = book_numbers(entries, number, taken, slugs)
    if backend is None and plan:
        from judge_site.worker.engine import judge_engine

        backend = judge_engine().backend()
    reports: list[dict[str, Any]] = []
    for entry in entries:
        started = time.monotonic()
        report: dict[str, Any] = {"folder": entry.relative_to(base), "slug": entry.slug,
                                  "number": plan.get(entry.slug), "imported": False}
        if entry.skipped:
            report["skipped"] = entry.skipped
        elif entry.error:
            report["error"] = entry.error
        else:
            try:
                report.update(practice_import(entry.path, number=plan[entry.slug],
                                              dest_dir=dest_dir, backend=backend))
            except PackageError as exc:
                report["error"] = str(exc)
            except Exception as exc:  # the check could not run (a sandbox fault): go on
                logger.exception("practice import of %s failed", entry.path)
                report["error"] = f"the check could not run: {type(exc).__name__}: {exc}"
            else:
                report.pop("package_dir", None)
                if not report["imported"]:
                    check = report["check"]
                    report["error"] = "its check failed: " + "; ".join(
                        check["messages"]
                        or [f"solution {check['solution']}, starter {check['starter']}"]
                    )
        report["seconds"] = round(time.monotonic() - started, 2)
        reports.append(report)
        if on_folder is not None:
            on_folder(report)
    return reports

"""The staff upload of a book: a zip holding several practice folders (one book, several, or
the handbook's ``practice/problems``). Each folder becomes a version of its problem, checked by
a worker, exactly as one uploaded practice folder does (services/packages.py); the page shows
one report per folder, each following its check. A folder that is refused changes nothing;
the others go on. The whole zip is refused, storing nothing, when it is not a book (unsafe
paths, links, no practice folder, a slug twice) or its numbers clash with the catalog.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from judge_site.catalog.book_import import book_numbers
from judge_site.catalog.models import Problem
from judge_site.catalog.services import problem_export_zip
from judge_site.core import zips
from judge_site.staff.models import ProblemVersion
from judge_site.staff.services.audit import audit_record
from judge_site.staff.services.packages import (
    StaffError,
    _control_character,
    package_upload,
)
from sandbox.grader.package import PackageError
from sandbox.practice import PracticeError
from sandbox.practice import book as practice_book
from sandbox.practice import folder as practice_folder

MAX_BOOK_FILES = 4000  # entries of a book zip: a few files per exercise, a few hundred exercises


def is_book_zip(data: bytes) -> bool:
    """Whether ``data`` is a zip holding more than one problem.md (several practice folders);
    False for anything else, which the one-folder upload then answers."""
    try:
        with zips.open_zip(data) as archive:
            names = archive.namelist()
    except PackageError:
        return False
    return sum(1 for name in names if PurePosixPath(name).name == "problem.md") > 1


def _unzip(data: bytes, dest: Path) -> None:
    """Unpack the book into ``dest`` (created), after checking every member: no absolute path,
    ``..``, link or odd name; the size caps of a package zip, with more entries."""
    with zips.open_zip(data) as archive:
        members = zips.checked_members(archive, MAX_BOOK_FILES)
        if any(path.parts == ("problem.md",) for _, path in members):
            raise PackageError("a problem.md at the zip's root: zip the practice folders, each "
                               "in its own folder named by its slug")
        dest.mkdir(parents=True)
        zips.extract(archive, members, dest)


def _catalog() -> tuple[dict[int, str], dict[str, int]]:
    """number -> slug and slug -> number of the problems and of the uploaded versions (a
    version not yet used holds its number, as for one uploaded folder)."""
    taken: dict[int, str] = {}
    for number, slug in ProblemVersion.objects.order_by("created_at").values_list(
        "problem_number", "slug"
    ):
        taken[number] = slug
    taken.update(Problem.objects.values_list("number", "slug"))
    slugs = {slug: number for number, slug in taken.items()}
    return taken, slugs


def _refuse(actor: Any, filename: str, message: str) -> StaffError:
    audit_record(actor, "package.upload_refused", filename or "zip", message=message)
    return StaffError(message)


def _upload_folder(actor: Any, entry: practice_book.BookEntry, number: int, work: Path,
                   filename: str) -> ProblemVersion:
    """One folder of the book as the next version of problem ``number`` (StaffError if not)."""
    try:
        folder = practice_folder.read_folder(entry.path)
    except (PracticeError, OSError) as exc:
        raise StaffError(str(exc).replace(str(work), "")) from None
    refused = _control_character(folder)
    if refused:
        raise StaffError(refused)
    try:
        package_dir = practice_folder.write_package(folder, work / "out" / entry.slug, number)
        zipped = problem_export_zip(package_dir)
    except (PackageError, PracticeError, OSError, ValueError) as exc:
        message = str(exc).replace(str(work), "")
        raise StaffError(f"the folder cannot be made into a package: {message}") from None
    return package_upload(actor, zipped, f"{filename}: {entry.slug}" if filename else entry.slug)


def practice_book_upload(
    actor: Any, data: bytes, filename: str = "", number: int | None = None
) -> list[dict[str, Any]]:
    """Upload every practice folder of a book zip, numbered in the book's order (from
    ``number``; default: each slug's problem, else the next free numbers). Returns one outcome
    per folder, in order: ``{"folder", "slug", "number", "version"}`` (the ProblemVersion, its
    check enqueued) or ``error`` / ``skipped`` instead of a version."""
    work = Path(tempfile.mkdtemp(prefix="practice-book-"))
    try:
        try:
            _unzip(data, work / "in")
            entries = practice_book.read_book(work / "in")
        except (PackageError, PracticeError, OSError) as exc:
            raise _refuse(actor, filename, str(exc).replace(str(work / "in"), "the zip")) from None
        taken, slugs = _catalog()
        try:
            plan = book_numbers(entries, number, taken, slugs)
        except PackageError as exc:
            raise _refuse(actor, filename, str(exc).replace("--number", "Number")) from None
        base = practice_book.problems_root(work / "in")
        outcomes: list[dict[str, Any]] = []
        for entry in entries:
            outcome: dict[str, Any] = {"folder": entry.relative_to(base), "slug": entry.slug,
                                       "number": plan.get(entry.slug), "version": None,
                                       "error": entry.error, "skipped": entry.skipped}
            if not entry.error and not entry.skipped:
                try:
                    outcome["version"] = _upload_folder(actor, entry, plan[entry.slug], work,
                                                        filename)
                except StaffError as exc:
                    outcome["error"] = str(exc)
                    audit_record(actor, "package.upload_refused", f"{filename}: {entry.slug}",
                                 message=str(exc))
            outcomes.append(outcome)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return outcomes

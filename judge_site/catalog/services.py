"""Writes to the problem catalog: sync packages from disk, export and import them as zips.

The packages on disk are the source of truth; the database keeps what the site shows (title,
statement, starter, public example names and notes; never a hidden input) plus the package's
folder and content hash, so every submission can record which version judged it.
"""

from __future__ import annotations

import io
import re
import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from django.conf import settings
from django.db import transaction

from judge_site.catalog.models import Draft, Problem
from judge_site.core import zips
from judge_site.core.zips import MAX_FILES, MAX_UNPACKED_BYTES
from sandbox.grader.check import public_cases_static
from sandbox.grader.package import PackageError, ProblemPackage, load_package
from sandbox.practice import PracticeError
from sandbox.practice import folder as practice_folder
from sandbox.practice import package as practice_package

SyncStatus = Literal["created", "updated", "unchanged", "unpublished", "kept upload"]

# The caps and path rules of every zip read are in core/zips.py (imported here by name too).
FOLDER_RE = re.compile(r"^[0-9]{2,5}-[a-z0-9][a-z0-9-]{0,90}$")
# Fixed timestamp for every zip entry: the same package always exports to the same bytes.
ZIP_EPOCH = (2020, 1, 1, 0, 0, 0)


def _package_files(path: Path) -> list[Path]:
    """Every file of a package, as the version hash sees them (no __pycache__), sorted."""
    return sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def public_examples(package: ProblemPackage) -> list[dict[str, str]]:
    """Name, function and note of each public case; hidden cases are never listed.

    Read from tests.py's source without running it: the web process has no torch.
    """
    if package.practice is not None:  # a practice folder's test.py: test_example*
        return practice_package.public_examples(package.path, package.practice.public)
    return public_cases_static(package.path / "tests.py")


def _fields(package: ProblemPackage) -> dict[str, Any]:
    return {
        "slug": package.slug,
        "title": package.title,
        "difficulty": package.difficulty,
        "chapter": package.chapter,
        "tags": list(package.tags),
        "device": package.device,
        "statement_md": package.statement_md,
        "starter_code": package.starter_code,
        "manifest": package.manifest,
        "public_examples": public_examples(package),
        "package_dir": str(package.path.resolve()),
        "version": package.version,
    }


@transaction.atomic
def problem_sync(package: ProblemPackage) -> SyncStatus:
    """Create or update the problem numbered like ``package``; submissions are untouched.

    ``published`` is set on creation only: an admin's unpublishing survives later syncs.
    """
    fields = _fields(package)
    clash = Problem.objects.filter(slug=package.slug).exclude(number=package.number).first()
    if clash is not None:
        raise PackageError(
            f"{package.path}: slug {package.slug!r} already belongs to problem {clash.number}"
        )
    problem = Problem.objects.select_for_update().filter(number=package.number).first()
    if problem is None:
        Problem.objects.create(number=package.number, published=True, **fields)
        return "created"
    if all(getattr(problem, name) == value for name, value in fields.items()):
        return "unchanged"
    for name, value in fields.items():
        setattr(problem, name, value)
    problem.save()
    return "updated"


def problem_sync_all(problems_dir: Path | str) -> list[tuple[int, SyncStatus]]:
    """Sync every package folder under ``problems_dir``; idempotent, keyed by number.

    A problem whose package used to live under ``problems_dir`` and is gone is unpublished,
    never deleted (its submissions and their verdicts stay); if the package comes back, an
    admin republishes it. Problems stored elsewhere (e.g. imported into another folder) are
    left alone.
    """
    root = Path(problems_dir).resolve()
    folders = sorted(p for p in root.iterdir() if (p / "problem.toml").is_file())
    packages = [load_package(folder) for folder in folders]
    numbers = [p.number for p in packages]
    if len(set(numbers)) != len(numbers):
        dupes = sorted({n for n in numbers if numbers.count(n) > 1})
        raise PackageError(f"{root}: several packages use the numbers {dupes}")
    uploads = Path(settings.JUDGE_PACKAGES_DIR).resolve()
    uploaded = {  # a version uploaded by staff wins over the catalog on disk (/staff/upload/)
        p.number for p in Problem.objects.filter(number__in=numbers)
        if Path(p.package_dir).is_relative_to(uploads)
    }
    results: list[tuple[int, SyncStatus]] = [
        (p.number, "kept upload" if p.number in uploaded else problem_sync(p)) for p in packages
    ]
    gone = Problem.objects.filter(published=True).exclude(number__in=numbers)
    for problem in gone:
        if Path(problem.package_dir).parent == root:
            Problem.objects.filter(pk=problem.pk, published=True).update(published=False)
            results.append((problem.number, "unpublished"))
    return sorted(results)


def problem_export_zip(package_dir: Path | str) -> bytes:
    """The package as one zip: its folder name at the root, byte-identical on every export."""
    path = Path(package_dir)
    load_package(path)  # refuse to export something that does not load
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for file in _package_files(path):
            name = f"{path.name}/{file.relative_to(path).as_posix()}"
            info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, file.read_bytes())
    return buffer.getvalue()


def problem_import_zip(data: bytes, dest_dir: Path | str) -> ProblemPackage:
    """Unpack a package zip into ``dest_dir/<folder>`` after validating it; returns it loaded.

    Refused: archives over the size caps, absolute paths, ``..``, links, odd characters, more
    than one top folder, a folder name that is not ``<number>-<slug>``, or a package that does
    not load. An existing folder of the same name is replaced only once the new one loads.
    """
    with zips.open_zip(data) as archive:
        members = zips.checked_members(archive)
        tops = {path.parts[0] for _, path in members}
        if len(tops) != 1:
            raise PackageError(f"the zip must hold exactly one package folder, not {sorted(tops)}")
        (folder,) = tops
        if not FOLDER_RE.match(folder):
            raise PackageError(f"package folder {folder!r} is not named <number>-<slug>")
        dest = Path(dest_dir)
        dest.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=dest))
        try:
            zips.extract(archive, members, staging)
            package = load_package(staging / folder)
            public_cases_static(staging / folder / "tests.py")  # parses; public cases literal
            if not folder.startswith(f"{package.number:03d}-") and not folder.startswith(
                f"{package.number}-"
            ):
                raise PackageError(f"folder {folder!r} does not match number {package.number}")
            final = dest / folder
            backup = None
            if final.exists():
                backup = staging / ".previous"
                final.rename(backup)
            (staging / folder).rename(final)
            if backup is not None:
                shutil.rmtree(backup)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return load_package(final)


# ---------------------------------------------------------------- practice folders


def practice_next_number() -> int:
    """The number after the highest problem's (1 for an empty catalog)."""
    last = Problem.objects.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def practice_import(
    folder_path: Path | str,
    *,
    number: int | None = None,
    dest_dir: Path | str | None = None,
    backend: Any = None,
) -> dict[str, Any]:
    """Import a practice folder (sandbox/practice/folder.py) as problem ``number`` (default: the next
    free one): write its package into a staging folder under ``dest_dir`` (default
    JUDGE_PACKAGES_DIR/practice), run its check (solution AC, starter not) with ``backend``
    (default: the site's), and only when it passes move it into place and sync the catalog.

    Returns the report ``{"number", "slug", "public_tests", "hidden_tests", "unsupported",
    "check": {"passed", "solution", "starter", "messages"}, "imported", "package_dir"}``.
    Raises PackageError, changing nothing, for a folder that cannot be read or a number or slug
    that belongs to another problem. A folder whose check fails changes nothing either."""
    from judge_site.worker import confinement
    from sandbox.practice.package_check import check_practice

    try:
        folder = practice_folder.read_folder(folder_path)
    except PracticeError as exc:
        raise PackageError(str(exc)) from None
    except OSError as exc:
        raise PackageError(f"{folder_path}: {exc}") from None
    existing = Problem.objects.filter(slug=folder.slug).first()
    if number is None:
        number = existing.number if existing is not None else practice_next_number()
    if number < 1:
        raise PackageError(f"number {number}: problem numbers start at 1")
    if existing is not None and existing.number != number:
        raise PackageError(f"slug {folder.slug!r} already belongs to problem {existing.number}")
    holder = Problem.objects.filter(number=number).exclude(slug=folder.slug).first()
    if holder is not None:
        raise PackageError(f"number {number} already belongs to problem {holder.slug!r}")
    if backend is None:
        from judge_site.worker.engine import judge_engine

        backend = judge_engine().backend()
    dest = Path(dest_dir) if dest_dir is not None else Path(settings.JUDGE_PACKAGES_DIR) / "practice"
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".practice-", dir=dest))
    report: dict[str, Any] = {
        "number": number,
        "slug": folder.slug,
        "public_tests": folder.public_tests,
        "hidden_tests": folder.hidden_tests,
        "unsupported": [u.as_dict() for u in folder.unsupported],
        "check": {"passed": False, "solution": "", "starter": "", "messages": []},
        "imported": False,
        "package_dir": "",
    }
    try:
        staged = practice_folder.write_package(folder, staging, number)
        check = check_practice(load_package(staged), backend, confinement.judge_function(backend))
        report["unsupported"] += [u.as_dict() for u in check.callbacks_at_run + check.refused_at_run]
        report["check"] = check.as_dict()
        if check.cases is not None:  # a C++ / CUDA C++ folder: the cases its program printed
            report["public_tests"], report["hidden_tests"] = check.cases
        if not check.passed:
            return report
        final = dest / staged.name
        backup = None
        if final.exists():
            backup = staging / ".previous"
            final.rename(backup)
        staged.rename(final)
        try:
            problem_sync(load_package(final))
        except BaseException:  # leave the previous version in place, as it was
            shutil.rmtree(final, ignore_errors=True)
            if backup is not None:
                backup.rename(final)
            raise
        report["imported"] = True
        report["package_dir"] = str(final.resolve())
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def practice_unzip(data: bytes, dest_dir: Path, filename: str = "") -> Path:
    """Unpack a practice folder sent as a zip into ``dest_dir`` and return the folder: the
    four files at the zip's root (the slug is the zip's file name) or inside one folder (the
    slug is its name). The same caps and path rules as a package zip."""
    with zips.open_zip(data) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_FILES or sum(i.file_size for i in infos) > MAX_UNPACKED_BYTES:
            raise PackageError("the zip is too large for a practice folder")
        members = [(info, zips.safe_member(info)) for info in infos if not info.is_dir()]
        tops = {path.parts[0] for _, path in members if len(path.parts) > 1}
        at_root = [path for _, path in members if len(path.parts) == 1]
        if at_root and tops or len(tops) > 1:
            raise PackageError("the zip must hold the folder's files at its root or in one folder")
        slug = tops.pop() if tops else Path(filename or "practice").stem.lower()
        folder = dest_dir / slug
        folder.mkdir(parents=True)
        inside = [(info, PurePosixPath(*path.parts[1:]) if len(path.parts) > 1 else path)
                  for info, path in members]
        zips.extract(archive, inside, folder)
    return folder


# ---------------------------------------------------------------- drafts


def code_text_problem(code: str, what: str = "code") -> str:
    """'' when ``code`` may be stored (a submission's or a draft's), else why not, naming it
    ``what``: over JUDGE_MAX_CODE_BYTES, not valid Unicode (lone surrogates sent through JSON),
    or holding a NUL character."""
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:
        return f"{what} is not valid Unicode text"
    cap = settings.JUDGE_MAX_CODE_BYTES
    if size > cap:
        return f"{what} is {size} bytes; the limit is {cap} bytes"
    if "\x00" in code:
        return f"{what} contains a NUL character"
    return ""


class DraftError(Exception):
    """A draft that cannot be kept; the message says why and what to do."""


def draft_save(user: Any, problem: Problem, code: str) -> Draft | None:
    """Keep ``code`` as the user's draft of ``problem`` (under the submission size cap); the
    starter code itself, or nothing, deletes the draft instead. Returns the draft kept."""
    if not isinstance(code, str):
        raise DraftError("code: a draft is text")
    code = code.replace("\r\n", "\n")  # a browser's form encoding sends CRLF line ends
    problem_text = code_text_problem(code, "the draft")
    if problem_text:
        raise DraftError(f"code: {problem_text}")
    if not code.strip() or code == problem.starter_code:
        draft_delete(user, problem)
        return None
    draft, _ = Draft.objects.update_or_create(user=user, problem=problem, defaults={"code": code})
    return draft


def draft_delete(user: Any, problem: Problem) -> None:
    Draft.objects.filter(user=user, problem=problem).delete()

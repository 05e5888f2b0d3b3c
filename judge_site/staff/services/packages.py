"""Package versions: upload (validate + store + enqueue its check), the check on a worker,
making a checked version current, publishing and unpublishing problems.

An upload never touches the catalog: it becomes a ProblemVersion in its own folder under
JUDGE_PACKAGES_DIR (``<number>/v<ordinal>/<folder>/``). Only a version whose check passed can be
made a problem's current version, and a problem whose current version failed its check cannot be
published.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.catalog.services import problem_export_zip, problem_import_zip, problem_sync
from judge_site.core.queueing import enqueue
from judge_site.staff.models import CheckStatus, ProblemVersion
from judge_site.staff.services.audit import audit_record
from judge_site.submissions import services as submission_services
from sandbox.grader.package import PackageError, load_package

logger = logging.getLogger(__name__)


# A checked package may judge dozens of solutions: far longer than one judging may take.
CHECK_SOFT_LIMIT_S = 1800


class StaffError(Exception):
    """A staff action refused; the message says why, in words the author can act on."""


def packages_dir() -> Path:
    return Path(settings.JUDGE_PACKAGES_DIR)


def _enqueue_check(version_id: int) -> None:
    enqueue("staff.check_version", (version_id,), queue=_check_queue_of(version_id))


def _check_queue_of(version_id: int) -> str:
    """The check's queue: the GPU workers' while one is alive for a package that can run on a
    GPU (routing.check_queue), else JUDGE_CHECK_QUEUE."""
    from judge_site.submissions.routing import check_queue

    version = ProblemVersion.objects.filter(pk=version_id).first()
    try:
        device = load_package(Path(version.package_dir)).device if version else "cpu"
    except (PackageError, OSError, ValueError):  # the check itself reports a broken package
        device = "cpu"
    return check_queue(device)


def package_upload(actor: Any, data: bytes, filename: str = "") -> ProblemVersion:
    """Validate a package zip (as ``export_problem`` writes it), keep it as the next version of
    its problem and enqueue its check. Raises StaffError, storing nothing, for a bad zip."""
    root = packages_dir()
    incoming = root / ".incoming" / uuid.uuid4().hex
    try:
        try:
            package = problem_import_zip(data, incoming)
        except SyntaxError as exc:  # tests.py is parsed for its public cases
            raise PackageError(f"tests.py does not parse: line {exc.lineno}: {exc.msg}") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise PackageError(f"the package cannot be read: {exc}") from None
        except (TypeError, AttributeError, KeyError) as exc:  # a field of the wrong shape
            raise PackageError(
                f"the package cannot be read (is every field of problem.toml of the type the "
                f"format says?): {type(exc).__name__}: {exc}"
            ) from None
    except PackageError as exc:
        shutil.rmtree(incoming, ignore_errors=True)
        message = _author_words(str(exc), incoming)
        audit_record(actor, "package.upload_refused", filename or "zip", message=message)
        raise StaffError(message) from None
    except BaseException:  # an error of ours: answered 500, but no folder is left behind
        shutil.rmtree(incoming, ignore_errors=True)
        raise
    clash = Problem.objects.filter(slug=package.slug).exclude(number=package.number).first()
    if clash is not None:
        shutil.rmtree(incoming, ignore_errors=True)
        message = (
            f"slug {package.slug!r} already belongs to problem {clash.number}: choose another "
            "slug in problem.toml, or the number of that problem to upload a new version of it"
        )
        audit_record(actor, "package.upload_refused", filename or "zip", message=message)
        raise StaffError(message)
    try:
        with transaction.atomic():
            last = ProblemVersion.objects.filter(problem_number=package.number).aggregate(
                n=Max("ordinal")
            )["n"]
            ordinal = (last or 0) + 1
            final = root / str(package.number) / f"v{ordinal}"
            if final.exists():  # a folder left by a failed transaction: never reuse it
                final = root / str(package.number) / f"v{ordinal}-{uuid.uuid4().hex[:8]}"
            final.parent.mkdir(parents=True, exist_ok=True)
            incoming.rename(final)
            version = ProblemVersion.objects.create(
                problem_number=package.number,
                ordinal=ordinal,
                slug=package.slug,
                title=package.title,
                content_hash=package.version,
                package_dir=str((final / package.folder_name).resolve()),
                uploaded_by=actor if getattr(actor, "pk", None) else None,
            )
            audit_record(
                actor, "package.upload", f"problem {package.number}",
                version=version.label, content_hash=package.version, file=filename,
            )
            vid = version.pk
            transaction.on_commit(lambda: _enqueue_check(vid))
    except IntegrityError:
        shutil.rmtree(incoming, ignore_errors=True)
        raise StaffError("another upload of this problem arrived at the same time: retry") from None
    return version


def practice_upload(
    actor: Any, data: bytes, filename: str = "", number: int | None = None
) -> ProblemVersion:
    """A practice folder (sandbox/practice/folder.py) as a zip: made into a package of the kind
    ``practice`` as problem ``number`` (default: its slug's problem, else the next free
    number), then uploaded like any package (a version, checked by a worker, used by hand)."""
    from judge_site.catalog.services import practice_next_number, practice_unzip
    from sandbox.practice import PracticeError
    from sandbox.practice import folder as practice_folder

    work = Path(tempfile.mkdtemp(prefix="practice-upload-"))
    try:
        try:
            folder = practice_folder.read_folder(practice_unzip(data, work / "in", filename))
        except (PackageError, PracticeError, OSError) as exc:
            message = str(exc).replace(str(work), "")
            audit_record(actor, "package.upload_refused", filename or "zip", message=message)
            raise StaffError(message) from None
        refused = _control_character(folder)
        if refused:
            audit_record(actor, "package.upload_refused", filename or "zip", message=refused)
            raise StaffError(refused)
        if number is None:
            existing = Problem.objects.filter(slug=folder.slug).first()
            pending = ProblemVersion.objects.filter(slug=folder.slug).first()
            if existing is not None:
                number = existing.number
            elif pending is not None:
                number = pending.problem_number
            else:
                last = ProblemVersion.objects.aggregate(n=Max("problem_number"))["n"] or 0
                number = max(practice_next_number(), last + 1)
        try:
            package_dir = practice_folder.write_package(folder, work / "out", number)
            zipped = problem_export_zip(package_dir)
        except (PackageError, PracticeError, OSError, ValueError) as exc:
            message = re.sub(re.escape(str(work)) + r"/[^\s:]*", "", str(exc)).strip(": ")
            message = f"the folder cannot be made into a package: {message}"
            audit_record(actor, "package.upload_refused", filename or "zip", message=message)
            raise StaffError(message) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return package_upload(actor, zipped, filename)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _control_character(folder: Any) -> str:
    """Why problem.md's one-line fields (title, chapter, difficulty, tags, requires) are
    refused, or '': they hold no control characters (they end up in problem.toml, which TOML
    refuses, and on every page)."""
    for name in ("slug", "title", "chapter", "difficulty", "tags", "requires"):
        value = getattr(folder, name, "")
        for text in value if isinstance(value, list) else [value]:
            found = _CONTROL.search(str(text))
            if found:
                return (f"problem.md: the {name} holds a control character "
                        f"(U+{ord(found.group()):04X}): remove it")
    return ""


def _author_words(message: str, incoming: Path) -> str:
    """The import's message without the server's temporary paths, plus what to do."""
    text = re.sub(re.escape(str(incoming)) + r"/[^/\s]*/?", "", message).replace(str(incoming), "")
    hints = [
        ("not a zip file", "upload the .zip that `manage.py export_problem` writes"),
        ("the zip is damaged", "make the zip again and upload it again"),
        ("unsafe path", "zip the package folder itself, with relative paths only"),
        ("not a regular file", "remove links and special files from the package"),
        ("exactly one package folder", "zip one folder named <number>-<slug>"),
        ("larger than", "a package is text: remove large data files"),
        ("unpacked size", "a package is text: remove large data files"),
        ("missing", "a package needs problem.toml, statement.md, starter.py, solution.py "
         "and tests.py"),
    ]
    for needle, hint in hints:
        if needle in text:
            return f"{text} ({hint})"
    return text


# ------------------------------------------------------------------------ the check


_SOLUTION = re.compile(r"^solutions/(?P<tag>\w+)/(?P<file>\S+) gets (?P<verdict>\w+)$")
_HIDDEN = re.compile(r"^solutions/(?P<tag>\w+)/(?P<file>\S+): hidden tests catch it$")


def describe_item(name: str, ok: bool, detail: str) -> dict[str, str]:
    """Expected and actual verdict of a check item, and (when it failed) what the author can do."""
    actual = detail.split(" ", 1)[0] if detail else ""
    if name.startswith("reference"):
        return {
            "expected": "AC", "actual": actual,
            "advice": "" if ok else "solution.py must pass every test: fix it, or fix the test "
            "(its expected behaviour or the tolerances in problem.toml) it fails",
        }
    if name == "starter fails":
        return {
            "expected": "not AC", "actual": actual,
            "advice": "" if ok else "starter.py passes every test: a starter must fail (leave "
            "the body unimplemented or deliberately incomplete)",
        }
    match = _SOLUTION.match(name)
    if match:
        tag, file = match["tag"], match["file"]
        return {
            "expected": tag, "actual": actual,
            "advice": "" if ok else f"solutions/{tag}/{file} is filed under {tag} but got "
            f"{actual or 'another verdict'}: if the file is right, add a test that gets it "
            f"{tag}; if the verdict is right, move the file to solutions/{actual or 'VERDICT'}/",
        }
    match = _HIDDEN.match(name)
    if match:
        tag, file = match["tag"], match["file"]
        return {
            "expected": f"{tag} on hidden tests",
            "actual": f"caught: {detail}" if ok else (actual or "not caught"),
            "advice": "" if ok else f"only public tests catch solutions/{tag}/{file}: a "
            "student tuning to the public examples would pass; add a hidden case that "
            "catches this mistake",
        }
    if name == "tests.py loads":
        return {"expected": "", "actual": "",
                "advice": "" if ok else "tests.py raised while loading: fix it (run the "
                "package check locally: manage.py check_problems FOLDER)"}
    return {"expected": "", "actual": "",
            "advice": "" if ok else f"{name.removeprefix('static: ')}: fix this in the package"}


def version_folders(version: str) -> list[str]:
    """The folders of the uploaded versions of content hash ``version`` (the package server,
    catalog/worker_views.py, asks through core/gates.py)."""
    return [str(folder) for folder in ProblemVersion.objects.filter(
        content_hash=version).values_list("package_dir", flat=True)]


def _check_backend() -> Any:
    from judge_site.worker.engine import judge_engine

    return judge_engine().backend()


def version_check(version_id: int) -> str:
    """Run the package check of an uploaded version (the worker's task). Every finished item
    is written to the row as it comes, for the page that watches it. Safe to call twice."""
    from judge_site.worker import confinement
    from sandbox.grader.check import CheckItem

    # Pending, or left running by a worker that died (the task is redelivered): claim it.
    stale = timezone.now() - timedelta(seconds=CHECK_SOFT_LIMIT_S + 120)
    claimed = ProblemVersion.objects.filter(
        Q(check_status=CheckStatus.PENDING)
        | Q(check_status=CheckStatus.RUNNING, check_started_at__lt=stale),
        pk=version_id,
    ).update(check_status=CheckStatus.RUNNING, check_items=[], check_message="",
             check_started_at=timezone.now())
    if not claimed:
        return "skipped: not pending"
    row = ProblemVersion.objects.filter(pk=version_id)
    version = row.get()
    items: list[dict[str, Any]] = []

    def on_item(item: CheckItem) -> None:
        items.append({
            "name": item.name, "ok": item.ok, "detail": item.detail,
            "seconds": round(item.seconds, 2), **describe_item(item.name, item.ok, item.detail),
        })
        row.update(check_items=list(items))

    try:
        package = submission_services.package_of(version.package_dir, version.content_hash)
        report = confinement.check_package(package, _check_backend(), on_item=on_item)
    except Exception as exc:  # an infrastructure fault, or a package that cannot be judged
        logger.exception("check of %s failed", version)
        row.update(
            check_status=CheckStatus.FAILED, checked_at=timezone.now(),
            check_message=f"the check could not run: {type(exc).__name__}: {exc}",
        )
        return "failed: error"
    failed = [i for i in items if not i["ok"]]
    if report.skipped:
        status, message = CheckStatus.FAILED, f"the check could not run here: {report.skipped}"
    elif report.ok:
        status, message = CheckStatus.PASSED, f"all {len(items)} checks pass"
    else:
        status = CheckStatus.FAILED
        message = f"{len(failed)} of {len(items)} checks fail: " + "; ".join(
            i["advice"] or f"{i['name']}: {i['detail']}" for i in failed[:3]
        ) + ("; ..." if len(failed) > 3 else "")
    row.update(check_status=status, check_message=message, checked_at=timezone.now(),
               check_items=items)
    return f"{status}: {message}"


# ------------------------------------------------------------------------ catalog changes


def version_activate(actor: Any, version: ProblemVersion) -> Problem:
    """Make a checked version its problem's current package (a new problem starts unpublished).
    Later judgings and rejudges use it; earlier submissions keep the version that judged them."""
    if version.check_status != CheckStatus.PASSED:
        raise StaffError(
            f"{version.label} of problem {version.problem_number} has not passed its check "
            f"({version.check_status}): fix the package and upload it again"
        )
    with transaction.atomic():
        try:
            outcome = problem_sync(load_package(version.package_dir))
        except PackageError as exc:
            raise StaffError(str(exc)) from None
        problem = Problem.objects.get(number=version.problem_number)
        if outcome == "created":
            Problem.objects.filter(pk=problem.pk).update(published=False)
            problem.published = False
        ProblemVersion.objects.filter(pk=version.pk).update(activated_at=timezone.now())
        audit_record(actor, "package.activate", f"problem {problem.number}",
                     version=version.label, content_hash=version.content_hash, sync=outcome)
    return problem


def current_version(problem: Problem) -> ProblemVersion | None:
    """The uploaded version the problem now runs, or None for a package synced from disk."""
    return (
        ProblemVersion.objects.filter(problem_number=problem.number, content_hash=problem.version)
        .order_by("-ordinal")
        .first()
    )


def problem_set_published(actor: Any, problem: Problem, published: bool) -> bool:
    """Publish or unpublish; refused (StaffError) to publish a version that failed its check.
    Returns whether anything changed."""
    if published:
        version = current_version(problem)
        if version is not None and version.check_status != CheckStatus.PASSED:
            raise StaffError(
                f"problem {problem.number} runs {version.label}, whose check "
                f"{'failed' if version.check_status == CheckStatus.FAILED else 'has not finished'}"
                ": upload a package that passes its check first"
            )
    changed = Problem.objects.filter(pk=problem.pk).exclude(published=published).update(
        published=published
    )
    problem.published = published
    if changed:
        audit_record(actor, "problem.publish" if published else "problem.unpublish",
                     f"problem {problem.number}")
    return bool(changed)

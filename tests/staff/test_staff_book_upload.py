"""Uploading a book (a zip of several practice folders) on /staff/upload/: each folder becomes a
version of its problem, numbered in the book's order, with its check enqueued and a report per
folder that follows the check; a refused folder changes nothing while the others go on; a zip
that is no book (path traversal, no practice folder, a slug twice, a number clash) is a 400
that stores nothing. The folders are our own toy exercises (tests/fixtures/practice/)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

from judge_site.catalog.models import Problem
from judge_site.staff.models import AuditEntry, CheckStatus, ProblemVersion
from judge_site.staff.services.packages import version_check

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "practice"


def _entries(*slugs: str, prefix: str = "practice/problems/toy/") -> dict[str, bytes]:
    entries: dict[str, bytes] = {}
    for slug in slugs:
        for file in sorted((FIXTURES / slug).iterdir()):
            entries[f"{prefix}{slug}/{file.name}"] = file.read_bytes()
    return entries


def _zip(entries: dict[str, bytes], name: str = "book.zip") -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in entries.items():
            archive.writestr(path, data)
    buffer.seek(0)
    buffer.name = name
    return buffer


def _leftovers(packages_dir: Path) -> list[Path]:
    return [p for p in packages_dir.rglob("*") if p.is_file()] if packages_dir.exists() else []


@pytest.mark.django_db
def test_a_book_zip_becomes_a_version_per_folder_with_a_report_each(
    client: Any, packages_dir: Path, charlie: Any, staff_tasks: list[Any], settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True
    Problem.objects.create(number=20, slug="other", title="Other", difficulty="easy",
                           statement_md="x", starter_code="", package_dir="/nowhere", version="v")
    entries = _entries("toy-running-stats", "toy-dot-product")
    broken = dict(_entries("toy-torch-scale"))
    del broken["practice/problems/toy/toy-torch-scale/test.py"]  # refused: no test.py
    entries.update(broken)
    client.force_login(charlie)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/staff/upload/", {"kind": "practice", "package": _zip(entries)})
    assert response.status_code == 200
    page = response.content.decode()
    versions = list(ProblemVersion.objects.order_by("problem_number"))
    # The book's order without a nav: chapter (basics, stats, torch), then slug.
    assert [(v.problem_number, v.slug) for v in versions] == [
        (21, "toy-dot-product"), (22, "toy-running-stats")]
    assert sorted(vid for task, vid, _ in staff_tasks if task == "check") == [
        v.pk for v in versions]
    for version in versions:  # a report per folder, each following its check
        assert f'data-poll-url="/staff/versions/{version.pk}/status.json"' in page
        assert f'href="/staff/versions/{version.pk}/"' in page
    assert "Refused: missing test.py" in page
    assert not (packages_dir / "23").exists()  # the refused folder left nothing
    assert AuditEntry.objects.filter(action="package.upload_refused",
                                     target="book.zip: toy-torch-scale").exists()
    # The checks run as for one uploaded folder; the report page shows each one's outcome.
    assert version_check(versions[0].pk).startswith("passed")
    assert ProblemVersion.objects.get(pk=versions[0].pk).check_status == CheckStatus.PASSED
    status = client.get(f"/staff/versions/{versions[0].pk}/status.json").json()
    assert status["done"] and "Use v1 for problem 21" in status["html"]
    # Uploaded again from 30: the slugs' pending versions hold 21 and 22, so it clashes.
    response = client.post("/staff/upload/", {"kind": "practice", "number": "30",
                                              "package": _zip(entries)})
    assert response.status_code == 400
    assert "toy-dot-product as 30: that slug already belongs to problem 21" in (
        response.content.decode())
    # Without a number, each slug gets the next version of its problem.
    response = client.post("/staff/upload/", {"kind": "practice", "package": _zip(entries)})
    assert response.status_code == 200
    assert sorted(ProblemVersion.objects.values_list("problem_number", "ordinal")) == [
        (21, 1), (21, 2), (22, 1), (22, 2)]


def _traversal() -> dict[str, bytes]:
    return dict(_entries("toy-dot-product", "toy-running-stats"),
                **{"practice/problems/toy/../../../evil.py": b"x = 1\n"})


def _link() -> dict[str, bytes]:
    return _entries("toy-dot-product", "toy-running-stats")


def _twice() -> dict[str, bytes]:
    return dict(_entries("toy-dot-product", "toy-running-stats"),
                **_entries("toy-dot-product", prefix="practice/problems/llm/"))


def _files_at_root() -> dict[str, bytes]:
    return dict(_entries("toy-dot-product", "toy-running-stats"),
                **{"problem.md": (FIXTURES / "toy-dot-product" / "problem.md").read_bytes()})


def _clash() -> dict[str, bytes]:
    Problem.objects.create(number=3, slug="taken", title="Taken", difficulty="easy",
                           statement_md="x", starter_code="", package_dir="/nowhere", version="v")
    return _entries("toy-dot-product", "toy-running-stats")


@pytest.mark.django_db
@pytest.mark.parametrize(("make", "number", "link", "message"), [
    (_traversal, "", False, "unsafe path in zip"),
    (_link, "", True, "not a regular file in zip"),
    (_twice, "", False, "a slug (the folder&#x27;s name) must be unique in the book"),
    (_files_at_root, "", False, "a problem.md at the zip&#x27;s root"),
    (_clash, "2", False, "toy-running-stats as 3: that number belongs to problem &#x27;taken&#x27;"),
], ids=["path traversal", "a link", "a slug twice", "files at the root", "number clash"])
def test_a_zip_that_is_no_book_is_a_400_that_stores_nothing(
    client: Any, packages_dir: Path, charlie: Any, staff_tasks: list[Any], make: Any,
    number: str, link: bool, message: str,
) -> None:
    upload = _zip(make())
    if link:
        data = upload.getvalue()
        buffer = io.BytesIO(data)
        with zipfile.ZipFile(buffer, "a") as archive:
            info = zipfile.ZipInfo("practice/problems/toy/toy-dot-product/extra.py")
            info.external_attr = 0o120777 << 16
            archive.writestr(info, "/etc/passwd")
        buffer.seek(0)
        buffer.name = "book.zip"
        upload = buffer
    client.force_login(charlie)
    response = client.post("/staff/upload/", {"kind": "practice", "number": number,
                                              "package": upload})
    assert response.status_code == 400, response.content.decode()[-1000:]
    assert message in response.content.decode()
    assert not ProblemVersion.objects.exists() and staff_tasks == []
    assert _leftovers(packages_dir) == []


@pytest.mark.django_db
def test_a_zip_of_one_folder_is_still_the_one_folder_upload(
    client: Any, packages_dir: Path, charlie: Any, staff_tasks: list[Any],
) -> None:
    client.force_login(charlie)
    response = client.post("/staff/upload/", {"kind": "practice", "package": _zip(
        _entries("toy-dot-product", prefix=""), name="toy-dot-product.zip")})
    assert response.status_code == 302
    assert list(ProblemVersion.objects.values_list("slug", flat=True)) == ["toy-dot-product"]

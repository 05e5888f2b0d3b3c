"""Uploading a package: bad zips are refused with their message and change nothing; a good
one becomes the next version, is checked on a worker, and only a passed check can be used and
published."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tiny_package import FOLDER, NUMBER, package_zip
from zip_damage import with_bad_crc, zip_of

from judge_site.catalog.models import Problem
from judge_site.core.zips import MAX_ZIP_BYTES
from judge_site.staff.models import AuditEntry, CheckStatus, ProblemVersion
from judge_site.staff.services import packages
from judge_site.staff.services.packages import (
    StaffError,
    describe_item,
    package_upload,
    problem_set_published,
    version_activate,
    version_check,
)
from sandbox.grader.check import CheckItem, CheckReport


def _zip(entries: dict[str, bytes], symlink: str = "") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = 0o120777 << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _entries(tmp_path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(package_zip(tmp_path))) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _bad_zips(tmp_path: Path) -> dict[str, tuple[bytes, str]]:
    good = _entries(tmp_path)
    without_statement = {k: v for k, v in good.items() if not k.endswith("statement.md")}
    escaping = dict(good, **{f"{FOLDER}/../../evil.py": b"x = 1\n"})
    two_tops = dict(good, **{"other-folder/readme.txt": b"hi"})
    bad_syntax = dict(good, **{f"{FOLDER}/tests.py": b"CASES = [\n"})
    toml = good[f"{FOLDER}/problem.toml"].decode()
    limits_number = dict(good, **{f"{FOLDER}/problem.toml": toml.replace(
        "[limits]\ntime_s = 5\nmemory_mib = 512\noutput_kib = 64\n", "limits = 5\n").encode()})
    no_memory = dict(good, **{f"{FOLDER}/problem.toml": toml.replace(
        "memory_mib = 512", "memory_mib = 0").encode()})
    return {
        "not a zip": (b"this is not a zip at all", "not a zip file"),
        "path escaping": (_zip(escaping), "unsafe path"),
        "oversized": (b"PK" + b"\0" * (MAX_ZIP_BYTES + 1),
                      "zip larger than"),
        "missing file": (_zip(without_statement), "missing statement.md"),
        "two folders": (_zip(two_tops), "exactly one package folder"),
        "a link": (_zip(good, symlink=f"{FOLDER}/link.py"), "not a regular file"),
        "tests.py does not parse": (_zip(bad_syntax), "tests.py does not parse"),
        "limits not a table": (_zip(limits_number), "`limits` must be a table"),
        "no memory limit": (_zip(no_memory), "limits.memory_mib = 0 is out of bounds"),
        "a bad CRC": (with_bad_crc(zip_of(good), f"{FOLDER}/tests.py"), "the zip is damaged"),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("kind", [
    "not a zip", "path escaping", "oversized", "missing file", "two folders", "a link",
    "tests.py does not parse", "limits not a table", "no memory limit", "a bad CRC",
])
def test_it_refuses_a_bad_zip_and_changes_nothing(
    kind: str, tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any]
) -> None:
    data, message = _bad_zips(tmp_path)[kind]
    with pytest.raises(StaffError) as refused:
        package_upload(charlie, data, "package.zip")
    assert message in str(refused.value)
    assert str(packages_dir) not in str(refused.value)  # no server paths in the message
    assert not ProblemVersion.objects.exists()
    assert not Problem.objects.exists()
    assert staff_tasks == []
    left = list(packages_dir.rglob("*")) if packages_dir.exists() else []
    assert [p for p in left if p.name != ".incoming"] == []  # not even an empty folder
    entry = AuditEntry.objects.get()
    assert entry.action == "package.upload_refused" and entry.actor == charlie


@pytest.mark.django_db
def test_the_upload_page_shows_the_refusal(
    client: Any, tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any]
) -> None:
    client.force_login(charlie)
    upload = io.BytesIO(b"not a zip")
    upload.name = "package.zip"
    response = client.post("/staff/upload/", {"package": upload})
    assert response.status_code == 400
    assert "Refused: not a zip file" in response.content.decode()
    assert not ProblemVersion.objects.exists()


@pytest.mark.django_db
def test_an_upload_becomes_the_next_version_and_its_check_is_enqueued(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any], settings: Any
) -> None:
    settings.JUDGE_CHECK_QUEUE = "rejudge"
    v1 = _upload(charlie, tmp_path, 1)
    v2 = _upload(charlie, tmp_path, 2)
    assert (v1.ordinal, v2.ordinal) == (1, 2)
    assert v1.problem_number == NUMBER and v1.check_status == CheckStatus.PENDING
    assert Path(v1.package_dir).is_dir() and Path(v1.package_dir).is_relative_to(packages_dir)
    assert v1.package_dir != v2.package_dir and v1.content_hash != v2.content_hash
    assert staff_tasks == [("check", v1.pk, "rejudge"), ("check", v2.pk, "rejudge")]
    assert not Problem.objects.exists()  # nothing in the catalog until a version is used
    assert AuditEntry.objects.filter(action="package.upload").count() == 2


def _upload(actor: Any, tmp_path: Path, version: int, **options: bool) -> ProblemVersion:
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        return package_upload(actor, package_zip(tmp_path, version, **options), f"v{version}.zip")


def _fake_check(monkeypatch: pytest.MonkeyPatch, ok: bool) -> None:
    import sandbox.grader.check

    def check(package: Any, backend: Any, on_item: Any = None, **_: Any) -> CheckReport:
        report = CheckReport(folder=package.folder_name, version=package.version)
        items = [CheckItem("reference (solution.py) is AC", True, "AC", 1.0),
                 CheckItem("solutions/WA/plus_one.py gets WA", ok, "WA" if ok else "AC", 1.0)]
        for item in items:
            report.items.append(item)
            on_item(item)
        return report

    monkeypatch.setattr(sandbox.grader.check, "check_package", check)
    # A backend that is not confined (the check above stands in for the whole judging).
    monkeypatch.setattr(packages, "_check_backend", lambda: SimpleNamespace(name="local"))


@pytest.mark.django_db
def test_a_passed_version_can_be_used_then_published(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fake_check(monkeypatch, ok=True)
    version = _upload(charlie, tmp_path, 1)
    assert version_check(version.pk).startswith("passed")
    assert version_check(version.pk) == "skipped: not pending"  # a redelivered task
    version.refresh_from_db()
    assert [i["name"] for i in version.check_items] == [
        "reference (solution.py) is AC", "solutions/WA/plus_one.py gets WA"]
    assert version.check_items[1]["expected"] == "WA" and version.check_items[1]["actual"] == "WA"
    problem = version_activate(charlie, version)
    assert problem.number == NUMBER and not problem.published  # a new problem starts hidden
    assert problem.version == version.content_hash and problem.package_dir == version.package_dir
    assert problem_set_published(charlie, problem, True)
    assert Problem.objects.get(number=NUMBER).published
    actions = list(AuditEntry.objects.order_by("at").values_list("action", flat=True))
    assert actions == ["package.upload", "package.activate", "problem.publish"]


@pytest.mark.django_db
def test_a_failed_check_cannot_be_used_nor_published(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fake_check(monkeypatch, ok=False)
    version = _upload(charlie, tmp_path, 1)
    assert version_check(version.pk).startswith("failed")
    version.refresh_from_db()
    assert version.check_status == CheckStatus.FAILED
    assert "filed under WA but got AC" in version.check_message
    with pytest.raises(StaffError, match="has not passed its check"):
        version_activate(charlie, version)
    assert not Problem.objects.exists()
    # A problem whose current version failed (say, synced with the same content) stays hidden.
    problem = Problem.objects.create(
        number=NUMBER, slug="tiny-double", title="t", difficulty="easy", statement_md="",
        starter_code="", package_dir=version.package_dir, version=version.content_hash,
        published=False,
    )
    with pytest.raises(StaffError, match="check failed"):
        problem_set_published(charlie, problem, True)
    assert not Problem.objects.get(number=NUMBER).published


@pytest.mark.django_db
def test_a_tests_py_that_raises_fails_the_check_with_its_error(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any], settings: Any
) -> None:
    settings.JUDGE_BACKEND = "local"
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True
    version = _upload(charlie, tmp_path, 1, tests_raise=True)
    version_check(version.pk)
    version.refresh_from_db()
    assert version.check_status == CheckStatus.FAILED
    (item,) = version.check_items
    assert item["name"] == "tests.py loads" and "NameError" in item["detail"]
    assert "tests.py raised while loading" in item["advice"]
    with pytest.raises(StaffError):
        version_activate(charlie, version)
    assert not Problem.objects.exists()


def test_every_failed_item_says_what_to_do() -> None:
    assert "solution.py must pass" in describe_item("reference (solution.py) is AC", False, "WA")["advice"]
    assert "a starter must fail" in describe_item("starter fails", False, "AC")["advice"]
    hidden = describe_item("solutions/WA/x.py: hidden tests catch it", False, "AC")
    assert "add a hidden case" in hidden["advice"]
    wrong = describe_item("solutions/TLE/x.py gets TLE", False, "WA (small=WA)")
    assert (wrong["expected"], wrong["actual"]) == ("TLE", "WA")
    assert "move the file to solutions/WA/" in wrong["advice"]
    assert describe_item("starter fails", True, "WA")["advice"] == ""


@pytest.mark.slow
@pytest.mark.django_db
def test_the_real_check_passes_the_tiny_package_in_the_local_sandbox(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any], settings: Any
) -> None:
    settings.JUDGE_BACKEND = "local"
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True
    version = _upload(charlie, tmp_path, 2)
    assert version_check(version.pk).startswith("passed"), version.check_message
    version.refresh_from_db()
    names = [i["name"] for i in version.check_items]
    assert "solutions/WA/small_only.py: hidden tests catch it" in names


@pytest.mark.django_db
def test_syncing_the_catalog_from_disk_keeps_an_uploaded_version(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tiny_package import write_package

    from judge_site.catalog.services import problem_sync_all

    disk = tmp_path / "catalog"
    write_package(disk, 1)
    assert problem_sync_all(disk) == [(NUMBER, "created")]
    _fake_check(monkeypatch, ok=True)
    version = _upload(charlie, tmp_path, 2)
    version_check(version.pk)
    version.refresh_from_db()
    version_activate(charlie, version)
    assert problem_sync_all(disk) == [(NUMBER, "kept upload")]
    assert Problem.objects.get(number=NUMBER).package_dir == version.package_dir


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.django_db
def test_the_check_runs_in_the_docker_sandbox_when_configured(
    tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any], settings: Any,
    docker_engine: None,
) -> None:
    settings.JUDGE_BACKEND = "docker"
    version = _upload(charlie, tmp_path, 1)
    assert version_check(version.pk).startswith("passed"), version.check_message
    version.refresh_from_db()
    reference = next(i for i in version.check_items if i["name"].startswith("reference"))
    assert (reference["expected"], reference["actual"]) == ("AC", "AC")


PRACTICE = Path(__file__).resolve().parents[1] / "fixtures" / "practice" / "toy-running-stats"


def _practice_zip(title: str = "Running statistics") -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for file in sorted(PRACTICE.iterdir()):
            text = file.read_text()
            if file.name == "problem.md":
                text = text.replace("title: Running statistics", f"title: {title}")
            archive.writestr(file.name, text)
    buffer.seek(0)
    buffer.name = "toy.zip"
    return buffer


@pytest.mark.django_db
@pytest.mark.parametrize("number,title,words", [
    ("\u00b2", "Running statistics", "a problem number is a positive integer"),
    ("0", "Running statistics", "a problem number is a positive integer"),
    ("9" * 40, "Running statistics", "a problem number is a positive integer"),
    ("9", "Running\x01 statistics", "the title holds a control character (U+0001)"),
])
def test_a_bad_practice_upload_is_a_400_that_leaves_nothing(
    client: Any, packages_dir: Path, charlie: Any, staff_tasks: list[Any], number: str,
    title: str, words: str,
) -> None:
    client.force_login(charlie)
    response = client.post("/staff/upload/", {"kind": "practice", "number": number,
                                              "package": _practice_zip(title)})
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not ProblemVersion.objects.exists() and staff_tasks == []
    assert not packages_dir.exists() or not any(packages_dir.rglob("*.*"))


BOOK = ("toy-dot-product", "toy-running-stats")


def _damaged(kind: str, tmp_path: Path) -> tuple[dict[str, str], bytes, str]:
    """The form's fields, and a zip of ``kind`` one of whose members fails its CRC check."""
    if kind == "package":
        return {}, with_bad_crc(zip_of(_entries(tmp_path)), f"{FOLDER}/solution.py"), "p.zip"
    if kind == "practice folder":
        entries = {f.name: f.read_bytes() for f in sorted(PRACTICE.iterdir())}
        return {"kind": "practice"}, with_bad_crc(zip_of(entries), "problem.md"), "toy.zip"
    entries = {f"book/{slug}/{f.name}": f.read_bytes()
               for slug in BOOK for f in sorted((PRACTICE.parent / slug).iterdir())}
    damaged = with_bad_crc(zip_of(entries), "book/toy-running-stats/test.py")
    return {"kind": "practice"}, damaged, "book.zip"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["package", "practice folder", "book"])
def test_a_zip_member_with_a_bad_crc_is_a_400_that_stores_nothing(
    client: Any, tmp_path: Path, packages_dir: Path, charlie: Any, staff_tasks: list[Any],
    kind: str,
) -> None:
    fields, data, name = _damaged(kind, tmp_path)
    upload = io.BytesIO(data)
    upload.name = name
    client.force_login(charlie)
    response = client.post("/staff/upload/", dict(fields, package=upload))
    page = response.content.decode()
    assert response.status_code == 400, page[-2000:]
    assert "the zip is damaged" in page and "CRC" in page
    assert not ProblemVersion.objects.exists() and not Problem.objects.exists()
    assert staff_tasks == []
    left = [p for p in packages_dir.rglob("*") if p.name != ".incoming"] \
        if packages_dir.exists() else []
    assert left == []
    assert AuditEntry.objects.get().action == "package.upload_refused"

"""Export/import of packages as zips: exact round trip; hostile archives refused."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from judge_site.catalog.models import Problem
from judge_site.catalog.services import MAX_UNPACKED_BYTES, problem_export_zip, problem_import_zip
from sandbox.grader.package import PackageError, load_package

CATALOG = Path(__file__).resolve().parents[2] / "problems"
PACKAGES = sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file())
P48 = CATALOG / "048-embedding-tied-head-padding"


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.mark.parametrize("package_dir", PACKAGES, ids=[p.name for p in PACKAGES])
def test_it_round_trips_every_package_exactly(package_dir: Path, tmp_path: Path) -> None:
    data = problem_export_zip(package_dir)
    assert problem_export_zip(package_dir) == data  # deterministic bytes
    imported = problem_import_zip(data, tmp_path)
    assert imported.path == tmp_path / package_dir.name
    assert imported.version == load_package(package_dir).version
    assert _files(imported.path) == _files(package_dir)


def _zip(entries: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (0o120777 << 16)
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _package_entries(folder: str = "048-embedding-tied-head-padding") -> dict[str, bytes]:
    return {f"{folder}/{name}": data for name, data in _files(P48).items()}


@pytest.mark.parametrize(
    "evil",
    [
        "../escaped.py",
        "048-embedding-tied-head-padding/../../escaped.py",
        "/abs/escaped.py",
        "048-embedding-tied-head-padding\\..\\escaped.py",
        "C:/escaped.py",
    ],
)
def test_it_refuses_paths_that_leave_the_folder(evil: str, tmp_path: Path) -> None:
    entries = _package_entries() | {evil: b"print('pwned')"}
    dest = tmp_path / "dest"
    with pytest.raises(PackageError):
        problem_import_zip(_zip(entries), dest)
    assert not (tmp_path / "escaped.py").exists()
    assert not any(p.is_file() for p in dest.rglob("*")) if dest.exists() else True


def test_it_refuses_links(tmp_path: Path) -> None:
    data = _zip(_package_entries(), symlink="048-embedding-tied-head-padding/link")
    with pytest.raises(PackageError, match="regular file"):
        problem_import_zip(data, tmp_path)


def test_it_refuses_two_folders_or_a_bad_folder_name(tmp_path: Path) -> None:
    two = _package_entries() | {"049-other/problem.toml": b""}
    with pytest.raises(PackageError, match="exactly one"):
        problem_import_zip(_zip(two), tmp_path)
    with pytest.raises(PackageError, match="number"):
        problem_import_zip(_zip(_package_entries("embedding-48")), tmp_path)
    with pytest.raises(PackageError, match="does not match"):
        problem_import_zip(_zip(_package_entries("049-embedding-tied-head-padding")), tmp_path)


def test_it_refuses_oversize_and_non_zips(tmp_path: Path) -> None:
    bomb = _package_entries() | {
        "048-embedding-tied-head-padding/big.bin": b"\0" * (MAX_UNPACKED_BYTES + 1)
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in bomb.items():
            archive.writestr(name, data)
    with pytest.raises(PackageError, match="unpacked size"):
        problem_import_zip(buffer.getvalue(), tmp_path)
    with pytest.raises(PackageError, match="not a zip"):
        problem_import_zip(b"PK\x03\x04 nope", tmp_path)


def test_it_refuses_a_package_that_does_not_load(tmp_path: Path) -> None:
    entries = _package_entries()
    del entries["048-embedding-tied-head-padding/statement.md"]
    with pytest.raises(PackageError, match="statement.md"):
        problem_import_zip(_zip(entries), tmp_path)
    assert not (tmp_path / "048-embedding-tied-head-padding").exists()


@pytest.mark.django_db
def test_the_commands_export_then_import_and_sync(tmp_path: Path) -> None:
    out = tmp_path / "p48.zip"
    call_command("export_problem", "48", str(out))
    call_command("import_problem", str(out), "--dest", str(tmp_path / "uploads"))
    problem = Problem.objects.get(number=48)
    assert problem.version == load_package(P48).version
    assert Path(problem.package_dir) == (tmp_path / "uploads" / P48.name).resolve()
    # Importing the same zip again replaces the folder and leaves the problem unchanged.
    call_command("import_problem", str(out), "--dest", str(tmp_path / "uploads"))
    assert Problem.objects.get(number=48).version == problem.version

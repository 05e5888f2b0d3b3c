"""Importing a whole book of practice folders (``import_practice DIR --all``): the table and the
JSON list, numbering in the book's order (from --number, or a folder's own number), a failing
folder that changes nothing while the others are imported, a re-run that keeps every number,
and bad books refused with a clear message before anything runs. The folders are our own toy
exercises (tests/fixtures/practice/), laid out as a handbook clone in a temporary folder; the
checks judge in the local backend. Each test prints the seconds per folder it measured."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from judge_site.catalog.book_import import book_numbers, practice_import_book
from judge_site.catalog.models import Problem
from sandbox.grader.package import PackageError
from sandbox.practice import book as practice_book

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "practice"
# Our toy book's nav: the torch chapter first, then basics, then stats.
MKDOCS = """site_name: Toy
nav:
  - Home: index.md
  - Part one:
    - Torch: toy/torch.md
    - Basics: toy/basics.md
  - Part two:
    - Stats: toy/stats.md
theme: material
"""


@pytest.fixture(autouse=True)
def _local_sandbox(settings: Any) -> None:
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True


def _book(tmp_path: Path, *slugs: str, nav: bool = True) -> Path:
    """A handbook clone holding the book ``toy`` with copies of the fixture folders."""
    clone = tmp_path / "handbook"
    book = clone / "practice" / "problems" / "toy"
    book.mkdir(parents=True)
    for slug in slugs or ("toy-running-stats", "toy-dot-product", "toy-torch-scale"):
        shutil.copytree(FIXTURES / slug, book / slug)
    if nav:
        (clone / "toy").mkdir()
        (clone / "toy" / "mkdocs.yml").write_text(MKDOCS)
    return clone


def _run(*args: str) -> tuple[str, CommandError | None]:
    from io import StringIO

    out = StringIO()
    try:
        call_command("import_practice", *args, "--all", stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def _print_timings(reports: list[dict[str, Any]]) -> None:
    for report in reports:
        print(f"[timing] {report['slug']}: {report['seconds']} s ({report.get('error') or 'ok'})")


def _leftovers(dest: Path) -> list[str]:
    return sorted(p.name for p in dest.iterdir()) if dest.exists() else []


# ---------------------------------------------------------------- the order, without a database


def test_the_book_order_follows_the_nav_then_difficulty_then_slug(tmp_path: Path) -> None:
    clone = _book(tmp_path)
    entries = practice_book.read_book(clone)
    assert [e.slug for e in entries] == ["toy-torch-scale", "toy-dot-product", "toy-running-stats"]
    assert {e.book for e in entries} == {"toy"}
    # Without the nav, chapters sort by name: basics, stats, torch.
    shutil.rmtree(clone / "toy")
    assert [e.slug for e in practice_book.read_book(clone / "practice" / "problems")] == [
        "toy-dot-product", "toy-running-stats", "toy-torch-scale"]


def test_numbers_keep_slugs_and_refuse_clashes() -> None:
    entries = [practice_book.BookEntry(Path(s), s, "toy") for s in ("a", "b", "c")]
    entries[2].number = 3  # its own
    assert book_numbers(entries, None, {5: "b"}, {"b": 5}) == {"a": 6, "b": 5, "c": 3}
    assert book_numbers(entries, 1, {}, {}) == {"a": 1, "b": 2, "c": 3}
    assert book_numbers(entries, 3, {}, {}) == {"a": 4, "b": 5, "c": 3}  # 3 is c's own
    with pytest.raises(PackageError, match="b as 2: that number belongs to problem 'other'"):
        book_numbers(entries, 1, {2: "other"}, {"other": 2})
    with pytest.raises(PackageError, match="a as 1: that slug already belongs to problem 9"):
        book_numbers(entries, 1, {9: "a"}, {"a": 9})


# ---------------------------------------------------------------- the command


@pytest.mark.django_db
def test_it_imports_a_book_and_prints_a_table(tmp_path: Path) -> None:
    Problem.objects.create(number=10, slug="other", title="Other", difficulty="easy",
                           statement_md="x", starter_code="", package_dir="/nowhere", version="v")
    dest = tmp_path / "packages"
    out, error = _run(str(_book(tmp_path)), "--dest", str(dest))
    assert error is None, out
    print(out)  # the seconds per folder, for the record
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["number", "slug", "outcome"]
    rows = [line.split() for line in lines[1:4]]
    assert [r[:3] for r in rows] == [["11", "toy-torch-scale", "imported"],
                                     ["12", "toy-dot-product", "imported"],
                                     ["13", "toy-running-stats", "imported"]]
    assert rows[1][3:5] == ["1/2", "AC/WA"]
    assert "toy-running-stats: refused: test_total_of_a_set" in out
    assert lines[-1] == "3 imported, 0 failed, 0 skipped"
    assert dict(Problem.objects.values_list("number", "slug")) == {
        10: "other", 11: "toy-torch-scale", 12: "toy-dot-product", 13: "toy-running-stats"}
    assert _leftovers(dest) == ["011-toy-torch-scale", "012-toy-dot-product",
                                "013-toy-running-stats"]


@pytest.mark.django_db
def test_json_numbers_from_n_and_a_failing_folder_changes_nothing(tmp_path: Path) -> None:
    clone = _book(tmp_path, "toy-running-stats", "toy-dot-product")
    solution = clone / "practice" / "problems" / "toy" / "toy-running-stats" / "solution.py"
    solution.write_text(solution.read_text().replace("return self.sum / self.count", "return 0.0"))
    dest = tmp_path / "packages"
    out, error = _run(str(clone), "--number", "40", "--json", "--dest", str(dest))
    assert error is not None and "1 of 2 folders not imported" in str(error)
    reports = json.loads(out)
    _print_timings(reports)
    dot, stats = reports
    assert (dot["slug"], dot["number"], dot["imported"]) == ("toy-dot-product", 40, True)
    assert dot["folder"] == "toy/toy-dot-product"
    assert dot["check"] == {"passed": True, "solution": "AC", "starter": "WA", "messages": []}
    assert dot["public_tests"] == ["test_example_small"] and "error" not in dot
    assert "package_dir" not in dot
    assert (stats["slug"], stats["number"], stats["imported"]) == ("toy-running-stats", 41, False)
    assert stats["check"]["passed"] is False
    assert stats["error"].startswith("its check failed: ")
    assert "solution.py is not accepted by its own tests" in stats["error"]
    assert list(Problem.objects.values_list("number", flat=True)) == [40]
    assert _leftovers(dest) == ["040-toy-dot-product"]  # no staging folder, no 041


@pytest.mark.django_db
def test_a_rerun_keeps_every_number_and_imports_again(tmp_path: Path) -> None:
    clone = _book(tmp_path, "toy-dot-product", "toy-running-stats")
    dest = tmp_path / "packages"
    first = practice_import_book(clone, number=5, dest_dir=dest)
    _print_timings(first)
    versions = dict(Problem.objects.values_list("slug", "version"))
    again = practice_import_book(clone, dest_dir=dest)  # no --number: each slug keeps its own
    _print_timings(again)
    assert [(r["slug"], r["number"], r["imported"]) for r in again] == [
        ("toy-dot-product", 5, True), ("toy-running-stats", 6, True)]
    assert dict(Problem.objects.values_list("slug", "version")) == versions
    assert Problem.objects.count() == 2
    assert _leftovers(dest) == ["005-toy-dot-product", "006-toy-running-stats"]
    # Another --number clashes with the numbers the slugs have, before any check runs.
    with pytest.raises(PackageError, match="toy-dot-product as 7: that slug already belongs"):
        practice_import_book(clone, number=7, dest_dir=dest)


@pytest.mark.django_db
def test_own_numbers_skipped_kinds_and_unreadable_folders(tmp_path: Path) -> None:
    clone = _book(tmp_path, "toy-dot-product")
    book = clone / "practice" / "problems" / "toy"
    own = book / "toy-dot-product" / "problem.md"
    own.write_text(own.read_text().replace("difficulty: 简单", "difficulty: 简单\nnumber: 77"))
    cpp = book / "toy-cpp"
    cpp.mkdir()
    (cpp / "problem.md").write_text("---\ntitle: C++\nchapter: toy/basics.md\n---\n\nx\n")
    (cpp / "test.cpp").write_text("int main() {}\n")
    triton = book / "toy-triton"
    shutil.copytree(FIXTURES / "toy-dot-product", triton)
    (triton / "problem.md").write_text("---\ntitle: T\nrequires: [triton]\n---\n\nx\n")
    (triton / "solution.py").write_text("import triton\n")
    gpusim = book / "toy-gpusim"
    shutil.copytree(FIXTURES / "toy-dot-product", gpusim)
    (gpusim / "solution.py").write_text("from gpusim import launch\n")
    broken = book / "toy-broken"
    broken.mkdir()
    (broken / "problem.md").write_text("no front matter\n")
    dest = tmp_path / "packages"
    out, error = _run(str(clone), "--json", "--dest", str(dest))
    reports = {r["slug"]: r for r in json.loads(out)}
    assert reports["toy-dot-product"]["number"] == 77 and reports["toy-dot-product"]["imported"]
    # A C++ folder is imported like the others (sandbox/practice/harness.py): this one lacks files.
    assert "missing starter.cpp" in reports["toy-cpp"]["error"]
    # The handbook's runtime comes from the clone, which has none here: an error, not a skip.
    assert "imports triton (through tritonkit)" in reports["toy-triton"]["error"]
    assert "imports gpusim" in reports["toy-gpusim"]["error"]
    assert "must start with a '---' line" in reports["toy-broken"]["error"]
    assert reports["toy-broken"]["number"] is None
    assert error is not None and "4 of 5 folders not imported" in str(error)
    assert list(Problem.objects.values_list("number", flat=True)) == [77]


def _empty(tmp_path: Path) -> Path:
    (tmp_path / "empty").mkdir()
    return tmp_path / "empty"


def _no_folders(tmp_path: Path) -> Path:
    (tmp_path / "book" / "notes").mkdir(parents=True)
    (tmp_path / "book" / "notes" / "readme.txt").write_text("hi")
    return tmp_path / "book"


def _twice(tmp_path: Path) -> Path:
    clone = _book(tmp_path, "toy-dot-product")
    shutil.copytree(FIXTURES / "toy-dot-product",
                    clone / "practice" / "problems" / "llm" / "toy-dot-product")
    return clone


def _clash(tmp_path: Path) -> Path:
    Problem.objects.create(number=3, slug="taken", title="Taken", difficulty="easy",
                           statement_md="x", starter_code="", package_dir="/nowhere", version="v")
    return _book(tmp_path, "toy-dot-product", "toy-running-stats")


@pytest.mark.django_db
@pytest.mark.parametrize(("make", "extra", "message"), [
    (_empty, [], "the folder is empty"),
    (_no_folders, [], "no practice folder in it"),
    (_twice, [], "a slug (the folder's name) must be unique in the book: 'toy-dot-product' in "
                 "llm/toy-dot-product, toy/toy-dot-product"),
    (_clash, ["--number", "2"], "toy-running-stats as 3: that number belongs to problem 'taken'"),
    (lambda tmp_path: tmp_path / "nowhere", [], "not a folder"),
], ids=["empty", "no practice folders", "a slug twice", "number clash", "missing"])
def test_a_bad_book_is_refused_with_its_reason_and_nothing_changes(
    make: Any, extra: list[str], message: str, tmp_path: Path
) -> None:
    root = make(tmp_path)
    before = set(Problem.objects.values_list("slug", flat=True))
    dest = tmp_path / "packages"
    out, error = _run(str(root), "--json", "--dest", str(dest), *extra)
    assert error is not None and "nothing imported" in str(error)
    assert message in json.loads(out)["error"]
    assert set(Problem.objects.values_list("slug", flat=True)) == before
    assert _leftovers(dest) == []


@pytest.mark.django_db
def test_the_single_folder_command_is_unchanged(tmp_path: Path) -> None:
    """Without --all, a folder of folders is one (bad) practice folder, as before."""
    from io import StringIO

    with pytest.raises(CommandError, match="missing problem.md"):
        call_command("import_practice", str(_book(tmp_path) / "practice"), stdout=StringIO())


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.django_db
def test_a_book_is_checked_in_the_confined_grader_with_docker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the docker backend every folder's check runs through the confined grader (the
    authors' test.py and solution never run in this process), as one folder's does."""
    from tests.conftest import require_docker

    require_docker()
    from judge_site.worker import confinement
    from sandbox.host.backends.base import get_backend

    backend = get_backend("docker")
    assert confinement.confined(backend.name)
    confined_calls: list[str] = []
    real = confinement.judge_function

    def spy(backend: Any) -> Any:
        judge = real(backend)
        assert judge.__name__ == "confined_judge"

        def counted(package: Any, source: str, **options: Any) -> Any:
            confined_calls.append(package.slug)
            return judge(package, source, **options)

        return counted

    monkeypatch.setattr(confinement, "judge_function", spy)
    clone = _book(tmp_path, "toy-dot-product", "toy-running-stats")
    reports = practice_import_book(clone, number=3, dest_dir=tmp_path / "packages",
                                   backend=backend)
    _print_timings(reports)
    assert [(r["slug"], r["number"], r["imported"], r["check"]["starter"]) for r in reports] == [
        ("toy-dot-product", 3, True, "WA"), ("toy-running-stats", 4, True, "WA")]
    assert set(confined_calls) == {"toy-dot-product", "toy-running-stats"}

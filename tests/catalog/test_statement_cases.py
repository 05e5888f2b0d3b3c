"""Statement cases (sandbox/grader/statement_cases.py): each sentence of a statement that says what must
happen maps to hidden cases of tests.py, and the package check's "static: statement cases" item
proves it; every built-in package carries the table and passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.grader.check import CheckReport, _static_checks
from sandbox.grader.package import PackageError, load_package
from sandbox.grader.statement_cases import CATALOG_DIR, is_catalog_folder, statement_cases_problems
from tests.tiny_package import write_package

PACKAGES = sorted(p for p in CATALOG_DIR.iterdir() if (p / "problem.toml").is_file())
ITEM = "static: statement cases"

# The tiny package's statement says "returning $2x$ with the dtype and shape of `x`".
GOOD = """
[[statement_cases]]
says = "returning $2x$ with the dtype and shape of `x`"
cases = ["small", "medium"]
"""


def tiny(tmp_path: Path, table: str = GOOD) -> Path:
    path = write_package(tmp_path)
    toml = path / "problem.toml"
    toml.write_text(toml.read_text() + table)
    return path


def item(path: Path, *, required: bool) -> tuple[bool, str]:
    package = load_package(path)
    cases = [(c.name, c.public) for c in package.load_cases()]
    return statement_cases_problems(package.statement_cases, package.statement_md, cases,
                                    required=required)


def test_it_counts_sentences_and_cases(tmp_path: Path) -> None:
    path = tiny(tmp_path, GOOD + GOOD.replace("returning $2x$ ", ""))
    package = load_package(path)
    assert package.statement_cases is not None
    assert package.statement_cases[0].cases == ("small", "medium")
    assert item(path, required=True) == (True, "2 sentences -> 2 cases")


def test_it_matches_across_line_breaks_and_spaces(tmp_path: Path) -> None:
    path = tiny(tmp_path, GOOD.replace("with the dtype", "with   the\\n dtype"))
    assert item(path, required=True)[0]


def test_it_fails_a_built_in_package_without_the_table(tmp_path: Path) -> None:
    path = write_package(tmp_path)
    ok, detail = item(path, required=True)
    assert not ok and "no [[statement_cases]] table" in detail and "problems/README.md" in detail
    assert item(path, required=False)[0]  # an instructor's own package need not have one


def test_it_fails_an_unknown_case(tmp_path: Path) -> None:
    ok, detail = item(tiny(tmp_path, GOOD.replace('"medium"]', '"medium", "huge"]')), required=True)
    assert not ok and "no case huge in tests.py" in detail


def test_it_fails_a_sentence_the_statement_does_not_say(tmp_path: Path) -> None:
    ok, detail = item(tiny(tmp_path, GOOD.replace("$2x$", "$3x$")), required=True)
    assert not ok and "is not in statement.md" in detail


def test_it_fails_an_entry_of_public_cases_only(tmp_path: Path) -> None:
    ok, detail = item(tiny(tmp_path, GOOD.replace(', "medium"]', "]")), required=True)
    assert not ok and "no hidden case" in detail


@pytest.mark.parametrize("table, message", [
    ('statement_cases = "x"\n', "must be an array of tables"),
    ('[[statement_cases]]\ncases = ["medium"]\n', "needs `says`"),
    ('[[statement_cases]]\nsays = "x"\ncases = []\n', "needs `cases`"),
    ('[[statement_cases]]\nsays = "x"\ncases = ["medium"]\nnote = "y"\n', "unknown key 'note'"),
])
def test_the_loader_refuses_a_malformed_table(tmp_path: Path, table: str, message: str) -> None:
    path = write_package(tmp_path)
    toml = path / "problem.toml"
    text = toml.read_text()
    # A top-level key must come before the first table of the file.
    toml.write_text(table + text if table.startswith("statement_cases =") else text + table)
    with pytest.raises(PackageError, match="problem.toml") as refused:
        load_package(path)
    assert message in str(refused.value)


def test_the_check_reports_the_item(tmp_path: Path) -> None:
    package = load_package(tiny(tmp_path, GOOD.replace('"medium"]', '"gone"]')))
    report = CheckReport(package.folder_name, package.version)
    _static_checks(package, package.load_cases(), report)
    (found,) = [i for i in report.items if i.name == ITEM]
    assert not found.ok and "no case gone" in found.detail


def test_only_the_catalog_folders_are_built_in() -> None:
    assert is_catalog_folder("048-embedding-tied-head-padding")
    assert not is_catalog_folder("901-tiny-double")


@pytest.mark.parametrize("package_dir", PACKAGES, ids=[p.name for p in PACKAGES])
def test_every_built_in_package_maps_its_statement(package_dir: Path) -> None:
    ok, detail = item(package_dir, required=is_catalog_folder(package_dir.name))
    assert ok, f"{package_dir.name}: {detail}"

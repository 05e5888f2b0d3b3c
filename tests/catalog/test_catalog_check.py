"""The whole catalog passes its package check through the real grader (local backend; the
checks run two at a time in worker processes, catalog_pool.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from catalog_pool import CheckPool

from sandbox.grader.check import CheckReport, check_package, public_cases_static
from sandbox.grader.package import load_package
from sandbox.host.backends.base import get_backend
from tests.conftest import skip_or_fail

CATALOG = Path(__file__).resolve().parents[2] / "problems"
PACKAGES = sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file())
P48 = CATALOG / "048-embedding-tied-head-padding"
# The Triton problems (56, 64, 79, 80) are checked here like the others: the venv has Triton,
# whose interpreter runs their kernels on CPU (the local backend sets TRITON_INTERPRET=1 where
# a sandbox has no GPU, as the triton image does). test_catalog_docker.py judges each one's
# reference in the triton image.
TRITON = [p for p in PACKAGES if "triton" in load_package(p).manifest.get("requires", [])]


# The longest local checks (about a minute each on an idle CI machine): started first.
LONG_CHECKS = ["054", "058", "048"]


@pytest.fixture(scope="module")
def local_checks(request: pytest.FixtureRequest) -> Iterator[CheckPool]:
    """Every check this run selects, started at once two at a time (catalog_pool.py). Problem
    48 is checked once, with the benchmark, when the benchmark test is selected: a check with
    the benchmark judges the same files, and times the reference too."""
    wanted: list[tuple[Path, bool]] = []
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module:
            continue
        if item.originalname in ("test_every_package_passes_its_check",
                                 "test_every_wrong_solution_fails_a_hinted_check"):
            wanted.append((item.callspec.params["package_dir"], False))
        elif item.originalname == "test_the_check_runs_the_reference_benchmark":
            wanted.append((P48, True))
    if (P48, True) in wanted and (P48, False) in wanted:
        wanted.remove((P48, False))
    pool = CheckPool(list(dict.fromkeys(wanted)), first=LONG_CHECKS)
    try:
        yield pool
    finally:
        pool.close()


def checked(pool: CheckPool, package_dir: Path) -> CheckReport:
    """The package's check; skipped when this Python lacks what it requires (triton, in a venv
    made before the lock had it), FAILED in CI, whose venv is made from the lock."""
    report = pool.report(package_dir)
    if report.skipped:
        skip_or_fail(f"the check was skipped: {report.skipped}")
    return report


@pytest.mark.slow
@pytest.mark.parametrize("package_dir", PACKAGES, ids=[p.name for p in PACKAGES])
def test_every_package_passes_its_check(package_dir: Path, local_checks: CheckPool) -> None:
    report = checked(local_checks, package_dir)
    assert report.ok, report.render()
    names = [item.name for item in report.items]
    answer = load_package(package_dir).answer_file.name  # solution.py, or a cuda's solution.cu
    assert f"reference ({answer}) is AC" in names and "starter fails" in names
    assert any(n.startswith("solutions/WA/") for n in names)
    if package_dir in TRITON:  # every tagged file judged, through Triton's interpreter
        tagged = [f"solutions/{v}/{f.name} gets {v}" for v, f in load_package(package_dir).solutions()]
        assert len(tagged) >= 4 and set(tagged) <= set(names), names


@pytest.mark.slow
@pytest.mark.parametrize("package_dir", PACKAGES, ids=[p.name for p in PACKAGES])
def test_every_wrong_solution_fails_a_hinted_check(
    package_dir: Path, local_checks: CheckPool
) -> None:
    """Each tagged wrong solution (WA, RE, MLE, ...) fails a check that has a hint ladder, so a
    student who makes that mistake is offered a hint (sandbox/grader/hints.py)."""
    report = checked(local_checks, package_dir)
    items = {item.name: item for item in report.items}
    assert items["static: hints"].ok, items["static: hints"].detail
    wrong = [f"solutions/{v}/{f.name}" for v, f in load_package(package_dir).solutions() if v not in ("AC", "CE")]
    assert wrong
    for label in wrong:
        hinted = items.get(f"{label}: fails a hinted check")
        assert hinted is not None and hinted.ok, report.render()


def test_the_check_fails_a_wrong_solution_no_hint_covers(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / P48.name
    shutil.copytree(P48, copy, ignore=shutil.ignore_patterns("__pycache__", "solutions"))
    (copy / "solutions/WA").mkdir(parents=True)
    shutil.copy(P48 / "solutions/WA/side_ignored.py", copy / "solutions/WA/side_ignored.py")
    toml = copy / "problem.toml"
    # Only embed has a ladder: side_ignored fails pad_batch's tests alone.
    toml.write_text(
        toml.read_text().split("[hints]")[0]
        + '[hints]\n[[hints.ladders]]\ncheck = "fn:embed"\nladder = ["a hint"]\n'
    )
    report = check_package(load_package(copy), get_backend("local"), bench=False)
    items = {item.name: item for item in report.items}
    assert items["solutions/WA/side_ignored.py gets WA"].ok
    assert items["static: hints"].ok
    assert not items["solutions/WA/side_ignored.py: fails a hinted check"].ok
    assert not report.ok


@pytest.mark.slow
def test_the_check_runs_the_reference_benchmark(local_checks: CheckPool) -> None:
    report = local_checks.report(P48, bench=True)
    (reference,) = [i for i in report.items if i.name.startswith("reference")]
    # The benchmark ran and gave its figure, or its timing was rejected with the rule that
    # rejected it (a busy machine: gap_excess under the suite's load, stop 46): either way a
    # result, never "the benchmark produced no result".
    assert reference.ok, reference.detail
    assert "speedup" in reference.detail or "timing rejected (" in reference.detail, reference.detail


def test_the_check_fails_a_package_whose_tagged_solution_lies(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / P48.name
    shutil.copytree(P48, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(copy / "solutions")
    (copy / "solutions/AC").mkdir(parents=True)
    (copy / "solutions/WA").mkdir()
    # A wrong solution filed as AC, and the reference filed as WA: both must be reported.
    shutil.copy(P48 / "solutions/WA/side_ignored.py", copy / "solutions/AC/liar.py")
    shutil.copy(copy / "solution.py", copy / "solutions/WA/not_wrong.py")
    package = load_package(copy)
    assert [f.name for _, f in package.solutions()] == ["liar.py", "not_wrong.py"]
    report = check_package(package, get_backend("local"), bench=False)
    failed = {item.name for item in report.items if not item.ok}
    assert "solutions/AC/liar.py gets AC" in failed
    assert "solutions/WA/not_wrong.py gets WA" in failed
    assert not report.ok


def test_public_cases_are_read_without_running_tests_py(tmp_path: Path) -> None:
    tests_py = tmp_path / "tests.py"
    tests_py.write_text(
        "raise SystemExit('never run')\n"
        "CASES = [Case('a', 'f', make, public=True, note='n'), Case('secret', 'f', make)]\n"
    )
    assert public_cases_static(tests_py) == [{"name": "a", "fn": "f", "note": "n"}]


def test_check_problems_command_reports_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from django.core.management import call_command
    from django.core.management.base import CommandError

    copy = tmp_path / P48.name
    shutil.copytree(P48, copy, ignore=shutil.ignore_patterns("__pycache__", "solutions"))
    (copy / "solutions/AC").mkdir(parents=True)
    shutil.copy(P48 / "solutions/WA/negative_ids_wrap.py", copy / "solutions/AC/claims_ac.py")
    with pytest.raises(CommandError) as failure:
        call_command("check_problems", str(copy), "--no-bench", "--backend", "local")
    assert failure.value.returncode == 1
    out = capsys.readouterr().out
    assert "ok   reference (solution.py) is AC" in out
    assert "FAIL solutions/AC/claims_ac.py gets AC" in out and "embed_negative_id=WA" in out
    assert "1 of 1 failed" in out


def test_the_check_skips_a_package_whose_requirements_are_missing(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / P48.name
    shutil.copytree(P48, copy, ignore=shutil.ignore_patterns("__pycache__"))
    toml = copy / "problem.toml"
    toml.write_text('requires = ["no_such_module_here"]\n' + toml.read_text())
    report = check_package(load_package(copy), get_backend("local"))
    assert report.skipped and "no_such_module_here" in report.skipped
    assert report.ok and report.items == [] and report.render().startswith("SKIP")

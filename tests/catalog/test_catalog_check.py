"""The whole catalog passes its package check through the real grader (local backend; the
checks run two at a time in worker processes, catalog_pool.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from catalog_pool import CheckPool

from sandbox.backends.base import get_backend
from sandbox.check import check_package, public_cases_static
from sandbox.problem import load_package

CATALOG = Path(__file__).resolve().parents[2] / "problems"
PACKAGES = sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file())
P48 = CATALOG / "048-embedding-tied-head-padding"
P56 = CATALOG / "056-triton-embedding-gather"
P64 = CATALOG / "064-triton-attention-forward"
P79 = CATALOG / "079-triton-fused-softmax"
P80 = CATALOG / "080-triton-fused-rmsnorm"
# Packages checked whole through Docker in the triton image (the venv has no triton, so the
# local check skips them); test_catalog_docker.py does not judge them again.
TRITON_CHECKED = [P56, P64, P79, P80]


# The longest local checks (about a minute each on an idle CI machine): started first.
LONG_CHECKS = ["054", "058", "048"]
# The Triton package whose Docker check also runs the benchmark (the Triton baseline timed in
# the image); the others' checks judge every file without it.
TRITON_BENCHED = P56


@pytest.fixture(scope="module")
def local_checks(request: pytest.FixtureRequest) -> Iterator[CheckPool]:
    """Every check this run selects, started at once two at a time (catalog_pool.py): the
    Triton packages' through Docker first, then the local ones. Problem 48 is checked once,
    with the benchmark, when the benchmark test is selected: a check with the benchmark judges
    the same files, and times the reference too."""
    from judge_site.submissions.engine import image_for
    from tests.catalog.test_catalog_docker import image_present
    from tests.conftest import docker_available

    wanted: list[tuple[Path, bool]] = []
    docker: list[tuple[Path, bool]] = []
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module:
            continue
        if item.originalname == "test_triton_problem_is_checked_for_real_through_docker_in_the_triton_image":
            path = item.callspec.params["package_dir"]
            if docker_available() is None and image_present(image_for(["triton"])):
                docker.append((path, path == TRITON_BENCHED))
        elif item.originalname in ("test_every_package_passes_its_check",
                                 "test_every_wrong_solution_of_48_64_fails_a_hinted_check"):
            wanted.append((item.callspec.params["package_dir"], False))
        elif item.originalname == "test_the_check_runs_the_reference_benchmark":
            wanted.append((P48, True))
    if (P48, True) in wanted and (P48, False) in wanted:
        wanted.remove((P48, False))
    pool = CheckPool(list(dict.fromkeys(wanted)), first=LONG_CHECKS, docker=docker)
    try:
        yield pool
    finally:
        pool.close()


@pytest.mark.slow
@pytest.mark.parametrize("package_dir", PACKAGES, ids=[p.name for p in PACKAGES])
def test_every_package_passes_its_check(package_dir: Path, local_checks: CheckPool) -> None:
    report = local_checks.report(package_dir)
    if report.skipped:
        pytest.skip(report.skipped)
    assert report.ok, report.render()
    names = [item.name for item in report.items]
    assert "reference (solution.py) is AC" in names and "starter fails" in names
    assert any(n.startswith("solutions/WA/") for n in names)


HINTED = [p for p in PACKAGES if 48 <= int(p.name[:3]) <= 64]


@pytest.mark.slow
@pytest.mark.parametrize("package_dir", HINTED, ids=[p.name for p in HINTED])
def test_every_wrong_solution_of_48_64_fails_a_hinted_check(
    package_dir: Path, local_checks: CheckPool
) -> None:
    """Each tagged wrong solution (WA, RE, MLE, ...) fails a check that has a hint ladder, so a
    student who makes that mistake is offered a hint (sandbox/hints.py)."""
    report = local_checks.report(package_dir)
    if report.skipped:
        pytest.skip(report.skipped)
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
    assert reference.ok and "speedup" in reference.detail, reference.detail


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


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("package_dir", TRITON_CHECKED, ids=[p.name for p in TRITON_CHECKED])
def test_triton_problem_is_checked_for_real_through_docker_in_the_triton_image(
    package_dir: Path, local_checks: CheckPool
) -> None:
    """The local check skips the Triton problems (56, 64, 79, 80: no triton in the venv); the site's
    docker backend routes them to tensor-judge-sandbox:triton, where every item is judged (the
    image missing FAILS in CI). Judged in the check pool beside the local checks; 56's check
    runs the benchmark too."""
    from judge_site.submissions.engine import image_for
    from tests.catalog.test_catalog_docker import require_image
    from tests.conftest import require_docker

    require_docker()
    require_image(image_for(["triton"]))
    package = load_package(package_dir)
    report = local_checks.docker_report(package_dir)
    assert not report.skipped and report.ok, report.render()
    names = [item.name for item in report.items]
    assert "reference (solution.py) is AC" in names and "starter fails" in names
    solutions = [f"solutions/{v}/{f.name} gets {v}" for v, f in package.solutions()]
    assert len(solutions) >= 4 and set(solutions) <= set(names), names
    if package_dir == TRITON_BENCHED:  # the Triton baseline ran in the image
        (reference,) = [i for i in report.items if i.name.startswith("reference")]
        assert "speedup" in reference.detail, reference.detail
    print(f"\n{report.render()}")

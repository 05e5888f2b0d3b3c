"""The catalog through the production path: the Docker sandbox judges each package's reference
(AC), and a tagged solution whose verdict the sandbox itself enforces (MLE: the container's
memory limit) gets it. Needs the engine and the sandbox image.

What the local package check (test_catalog_check.py) already proves for every tagged file is not
judged again here: a WA, RE or CE verdict comes from the same runner and the same comparison on
either backend. The Triton problems (56, 64, 79, 80) are checked whole by the local check too
(Triton's interpreter, in the venv); here each one's reference is judged in the triton image,
and problem 56 is checked through the site's own routing backend, with its benchmark: the Triton
baseline timed in the image."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.kernels_source import inline_kernels
from sandbox.grader.package import load_package
from tests.conftest import require_docker, require_image

CATALOG = Path(__file__).resolve().parents[2] / "problems"
PACKAGES = sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file())
P56 = CATALOG / "056-triton-embedding-gather"
# Problem 56 is checked through the routing backend below, its reference included.
DOCKER_PACKAGES = [p for p in PACKAGES if p != P56]
# Verdicts the sandbox enforces (its limits), which the local backend enforces differently.
SANDBOX_VERDICTS = {"MLE", "TLE", "OLE"}


def _sandbox_enforced_solution(package_dir: Path) -> tuple[str, Path] | None:
    """The first tagged solution whose verdict is a sandbox limit (MLE first), if any; a TLE
    file only in the first package of its language that has one (below)."""
    wrong = [(v, f) for v, f in load_package(package_dir).solutions() if v in SANDBOX_VERDICTS]
    wrong.sort(key=lambda vf: (vf[0] != "MLE", vf[0], vf[1].name))
    if wrong and wrong[0][0] == "TLE" and package_dir not in TLE_JUDGED:
        return None
    return wrong[0] if wrong else None


def _first_tle_of_each_language() -> set[Path]:
    """A TLE is the runner's time limit, enforced by the same code whatever the package (unlike
    an MLE, which depends on the package's own big case): judged through Docker in one package
    per language (the CUDA chapter's eight each spun 5 s of CPU for the same finding, about 40
    CPU-s of the suite; test_hostile_cuda.py's never-ending kernel is the same rule again). The
    local check judges every package's TLE file (test_catalog_check.py)."""
    first: dict[str, Path] = {}
    for package_dir in DOCKER_PACKAGES:
        package = load_package(package_dir)
        if any(v == "TLE" for v, _ in package.solutions()):
            first.setdefault(package.language, package_dir)
    return set(first.values())


TLE_JUDGED = _first_tle_of_each_language()


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("package_dir", DOCKER_PACKAGES, ids=[p.name for p in DOCKER_PACKAGES])
def test_docker_judges_reference_and_a_limit_solution(package_dir: Path) -> None:
    require_docker()
    from judge_site.worker.images import image_for
    from sandbox.grader.entry import judge
    from sandbox.host.backends.base import get_backend

    # A package that `requires` modules (problems 64, 79, 80: triton) runs in the image the default
    # JUDGE_SANDBOX_IMAGES maps them to; that image missing skips here, FAILS with CI=true.
    requires = load_package(package_dir).manifest.get("requires", [])
    backend = get_backend("docker", image=image_for(requires)) if requires else get_backend("docker")
    if requires:
        require_image(image_for(requires))
    package = dataclasses.replace(load_package(package_dir), benchmark=None)
    # The reference as the package check sends it: its kernels imports inlined (no sandbox
    # image holds the kernels package).
    reference_source = inline_kernels((package_dir / "solution.py").read_text())
    if package.language == "cuda":  # its model answer, compiled in the sandbox (emulation on CPU)
        reference_source = package.answer_file.read_text()
    reference = judge(package, reference_source, mode=Mode.SUBMIT, backend=backend, secret_seed=7)
    assert reference.verdict == Verdict.AC, reference.to_json()
    limit_solution = _sandbox_enforced_solution(package_dir)
    if limit_solution is None:
        return  # its tagged files' verdicts are the local check's (see the module's doc)
    verdict, file = limit_solution
    result = judge(package, file.read_text(), mode=Mode.SUBMIT, backend=backend, secret_seed=7)
    assert result.verdict == verdict, (file.name, result.to_json())


@pytest.mark.docker
@pytest.mark.slow
def test_the_site_checks_a_triton_package_in_the_triton_image(tmp_path: Path) -> None:
    """The package check through the site's docker backend, which routes problem 56
    (``requires = ["triton"]``) to the image the default JUDGE_SANDBOX_IMAGES maps it to: the
    reference is AC there, with a speedup against the Triton baseline timed in that image, and
    the starter fails. Its tagged solutions (the local check judges them) are left out of the
    copy checked here."""
    import shutil

    from django.test import override_settings

    from judge_site.worker.engine import JudgeEngine
    from judge_site.worker.images import image_for
    from sandbox.grader.check import check_package

    require_docker()
    require_image(image_for(["triton"]))
    copy = tmp_path / P56.name
    shutil.copytree(P56, copy, ignore=shutil.ignore_patterns("__pycache__", "solutions"))
    with override_settings(JUDGE_BACKEND="docker"):
        report = check_package(load_package(copy), JudgeEngine().backend(), bench=True)
    assert not report.skipped and report.ok, report.render()
    items = {item.name: item for item in report.items}
    assert items["starter fails"].ok
    reference = items["reference (solution.py) is AC"]
    assert "speedup" in reference.detail, reference.detail

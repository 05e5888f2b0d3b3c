"""Practice folders whose code imports the handbook's own runtime (``gpusim``, ``tritonkit``,
Triton through it): the runtime is taken from the user's clone at import time, stored in the
package, and runs only in the student's sandbox, where test.py reaches it through proxies. The
clone is our own fixture (tests/fixtures/practice_runtime/: a toy ``gpusim`` of ours, one
exercise), copied into a temporary folder; judging runs in the local backend, and once through
Docker."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from judge_site.catalog.book_import import practice_import_book
from judge_site.catalog.models import Problem
from sandbox.practice import PracticeError
from sandbox.practice import book as practice_book
from sandbox.practice import folder as practice_folder
from sandbox.practice import runtime as practice_runtime

CLONE = Path(__file__).resolve().parents[1] / "fixtures" / "practice_runtime"
SLUG = "toy-sim-saxpy"


@pytest.fixture(autouse=True)
def _local_sandbox(settings: Any) -> None:
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True


def _clone(tmp_path: Path, runtime: bool = True) -> Path:
    clone = tmp_path / "handbook"
    shutil.copytree(CLONE, clone)
    if not runtime:
        shutil.rmtree(clone / "practice" / "runtime")
    return clone


def _folder(clone: Path) -> Path:
    return clone / "practice" / "problems" / "sim" / SLUG


def _import_all(where: Path, dest: Path) -> tuple[list[dict[str, Any]], CommandError | None]:
    out = StringIO()
    try:
        call_command("import_practice", str(where), "--all", "--json", "--dest", str(dest),
                     stdout=out)
    except CommandError as exc:
        return json.loads(out.getvalue()), exc
    return json.loads(out.getvalue()), None


# ---------------------------------------------------------------- the import, nothing judged


def test_the_book_lists_a_runtime_folder_as_a_folder_to_import(tmp_path: Path) -> None:
    entries = practice_book.read_book(_clone(tmp_path))
    assert [(e.slug, e.skipped, e.error) for e in entries] == [(SLUG, "", "")]


def test_the_folder_takes_the_modules_it_imports_from_its_clone(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    folder = practice_folder.read_folder(_folder(clone))
    assert folder.runtime == {
        "gpusim.py": (clone / "practice" / "runtime" / "gpusim.py").read_text()}
    package = practice_folder.write_package(folder, tmp_path / "out", 5)
    assert practice_runtime.package_files(package) == folder.runtime
    assert 'runtime = ["gpusim"]' in (package / "problem.toml").read_text()


def test_a_runtime_package_and_what_its_modules_import_come_along(tmp_path: Path) -> None:
    runtime = tmp_path / "clone" / "practice" / "runtime"
    (runtime / "gpusim").mkdir(parents=True)
    (runtime / "gpusim" / "__init__.py").write_text("from gpusim.core import launch\n")
    (runtime / "gpusim" / "core.py").write_text("import minitl\n\n\ndef launch(): ...\n")
    (runtime / "minitl.py").write_text("X = 1\n")
    (runtime / "checker.py").write_text("# the handbook's: ours replaces it\n")
    (runtime / "unused.py").write_text("")
    folder = tmp_path / "clone" / "practice" / "problems" / "cuda" / "x"
    folder.mkdir(parents=True)
    files = practice_runtime.runtime_files(folder, ["import numpy as np, gpusim as gs\n",
                                                    "from checker import check\n"])
    assert sorted(files) == ["gpusim/__init__.py", "gpusim/core.py", "minitl.py"]
    assert practice_runtime.module_names(files) == ["gpusim", "minitl"]
    # Triton is the handbook's emulation: tritonkit must come from the clone too.
    with pytest.raises(PracticeError, match=r"imports triton \(through tritonkit\).*practice/runtime"):
        practice_runtime.runtime_files(folder, ["import triton\n"])
    # A folder that imports none of the handbook's modules needs nothing of the clone.
    assert practice_runtime.runtime_files(folder, ["import numpy\n"]) == {}


def test_a_clone_without_its_runtime_is_an_error_for_the_folder(tmp_path: Path) -> None:
    with pytest.raises(PracticeError, match=r"imports gpusim.*practice/runtime.*none in the "):
        practice_folder.read_folder(_folder(_clone(tmp_path, runtime=False)))


# ---------------------------------------------------------------- import_practice --all


@pytest.mark.django_db
def test_import_all_imports_the_folder_and_its_runtime_runs_only_in_the_sandbox(
    tmp_path: Path,
) -> None:
    clone = _clone(tmp_path)
    dest = tmp_path / "packages"
    reports, error = _import_all(clone, dest)
    assert error is None, reports
    [report] = reports
    assert (report["slug"], report["imported"], report["check"]["solution"],
            report["check"]["starter"]) == (SLUG, True, "AC", "RE"), report
    # The spy on gpusim.launch is a callback; a kernel of the test's own (a generator) cannot run
    # beside the student's: refused, and the tests after it still judged.
    assert {u["test"]: u["action"] for u in report["unsupported"]} == {
        "test_one_launch_of_the_right_size": "fallback", "test_a_kernel_of_the_test": "refused"}
    assert "returned to the student's code" in str(report["unsupported"])
    package = dest / f"{report['number']:03d}-{SLUG}"
    assert (package / "runtime" / "gpusim.py").read_text() == (
        clone / "practice" / "runtime" / "gpusim.py").read_text()
    # Not importable here, and never imported by the grader (in this process, locally).
    assert importlib.util.find_spec("gpusim") is None and "gpusim" not in sys.modules
    assert Problem.objects.get(slug=SLUG).number == report["number"]

    # The stored package needs no clone: it judges from its own copy of the runtime.
    from sandbox.grader.contracts import Mode
    from sandbox.grader.entry import judge
    from sandbox.grader.package import load_package
    from sandbox.host.backends.local import LocalBackend

    shutil.rmtree(clone)
    solution = (CLONE / "practice" / "problems" / "sim" / SLUG / "solution.py").read_text()
    result = judge(load_package(package), solution, mode=Mode.SUBMIT, backend=LocalBackend())
    assert result.verdict == "AC", result.to_json()
    assert {t.name: t.verdict for t in result.tests}["test_runtime_from_the_clone"] == "AC"
    # A scratch run of the student's file has the runtime too (and nothing of the tests).
    script = "print(gs.ORIGIN, saxpy(2.0, np.ones(3, dtype=np.float32), np.ones(3, dtype=np.float32)))"
    scratch = judge(load_package(package), "import numpy as np\n" + solution, mode=Mode.SCRATCH,
                    backend=LocalBackend(), script=script)
    assert scratch.output.strip() == "the test clone's practice/runtime [3. 3. 3.]", scratch.to_json()


@pytest.mark.django_db
def test_import_all_without_the_runtime_reports_an_error_not_a_skip(tmp_path: Path) -> None:
    reports, error = _import_all(_clone(tmp_path, runtime=False), tmp_path / "packages")
    [report] = reports
    assert not report["imported"] and "skipped" not in report
    assert "gpusim" in report["error"] and "practice/runtime" in report["error"]
    assert error is not None and "1 of 1 folders not imported" in str(error)
    assert not Problem.objects.exists()


# ---------------------------------------------------------------- the production sandbox


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.django_db
def test_the_docker_sandbox_runs_the_runtime_of_an_imported_folder(tmp_path: Path) -> None:
    """Through the hardened container: the runtime written beside the student's file, the
    test's device arrays and its spy on gpusim.launch living there."""
    from tests.conftest import require_docker

    require_docker()
    from sandbox.host.backends.base import get_backend

    reports = practice_import_book(_clone(tmp_path), dest_dir=tmp_path / "packages",
                                   backend=get_backend("docker"))
    print([(r["slug"], r["seconds"]) for r in reports])
    assert [(r["slug"], r["imported"], r["check"]["solution"], r["check"]["starter"])
            for r in reports] == [(SLUG, True, "AC", "RE")], [r.get("error") for r in reports]

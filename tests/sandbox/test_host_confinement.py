"""Where a host command runs an author's code (issue 41, judge_site/worker/host_confinement.py):
the decision for each package and setting, without starting Docker (the image lookup is
replaced); the confined run itself is tests/sandbox/test_host_confinement_docker.py's."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from judge_site.worker import confinement
from judge_site.worker.host_confinement import UnconfinedRefused, decide

REPO = Path(__file__).resolve().parents[2]
CATALOG_PACKAGE = next(p for p in sorted((REPO / "problems").iterdir()) if (p / "problem.toml").is_file())
TOY = REPO / "tests" / "fixtures" / "problems" / "900-toy"


@pytest.fixture(autouse=True)
def _no_host_image() -> Iterator[None]:
    confinement._host_image = None
    yield
    confinement._host_image = None


def found() -> str | None:
    return "tensor-judge-worker:offline"


def missing() -> str | None:
    return None


@override_settings(JUDGE_GRADER_IMAGE="", JUDGE_CONFINE_AUTHORS="auto", DEBUG=False)
def test_an_untrusted_package_is_confined_in_the_worker_image_the_engine_has() -> None:
    assert decide([TOY], "docker", find_image=found) == ""
    assert confinement.grader_image() == "tensor-judge-worker:offline"


@override_settings(JUDGE_GRADER_IMAGE="", JUDGE_TRUST_CATALOG=True, DEBUG=False)
def test_the_trusted_catalog_opts_out_and_false_confines_it_too() -> None:
    assert decide([CATALOG_PACKAGE], "docker", find_image=missing) == ""
    assert confinement._host_image is None
    with override_settings(JUDGE_TRUST_CATALOG=False):
        assert decide([CATALOG_PACKAGE], "docker", find_image=found) == ""
        assert confinement._host_image == "tensor-judge-worker:offline"


@override_settings(JUDGE_GRADER_IMAGE="", DEBUG=False)
def test_without_the_image_production_refuses_and_says_how_to_fix_it() -> None:
    with pytest.raises(UnconfinedRefused, match=r"runs unconfined as your user .*scripts/build_images"):
        decide([CATALOG_PACKAGE, TOY], "docker", find_image=missing)
    assert "the local backend confines nothing" in decide([TOY], "local", find_image=found)
    with override_settings(JUDGE_CONFINE_AUTHORS="never"), \
            pytest.raises(UnconfinedRefused, match="JUDGE_CONFINE_AUTHORS=never"):
        decide([TOY], "docker", find_image=found)


@override_settings(JUDGE_GRADER_IMAGE="", DEBUG=True)
def test_debug_warns_in_one_line_and_goes_on() -> None:
    line = decide([TOY], "local", find_image=missing)
    assert line.startswith("warning: the author's code of ") and "JUDGE_TRUST_CATALOG" in line
    assert "\n" not in line


@override_settings(JUDGE_GRADER_IMAGE="img:grader", DEBUG=False)
def test_a_configured_grader_image_is_kept() -> None:
    assert decide([TOY], "docker", find_image=missing) == ""
    assert confinement.grader_image() == "img:grader"


@override_settings(JUDGE_PROBLEMS_DIR=TOY.parent, JUDGE_BACKEND="docker", JUDGE_GRADER_IMAGE="",
                   DEBUG=False)
def test_manage_py_judge_refuses_an_unconfined_untrusted_package_without_judging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from judge_site.worker import host_confinement

    monkeypatch.setattr(host_confinement, "worker_image_present", missing)
    monkeypatch.setattr(confinement, "grader_image", missing)
    out = StringIO()
    with pytest.raises(CommandError, match="refused: the author's code of .*900-toy runs unconfined"):
        call_command("judge", "900", str(TOY / "solution.py"), stdout=out)
    assert out.getvalue() == ""


@override_settings(JUDGE_PROBLEMS_DIR=TOY.parent, JUDGE_BACKEND="local", DEBUG=True)
def test_manage_py_judge_in_debug_warns_on_stderr_and_judges() -> None:
    out, err = StringIO(), StringIO()
    call_command("judge", "900", str(TOY / "solution.py"), "--mode", "run", stdout=out, stderr=err)
    assert "runs unconfined as your user" in err.getvalue()
    assert "AC" in out.getvalue()

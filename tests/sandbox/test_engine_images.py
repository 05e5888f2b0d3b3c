"""Sandbox image selection by problem requirement (judge_site/worker/engine.py, backends.py, images.py).

A problem whose problem.toml says ``requires = ["triton"]`` (problem 56) is judged in the image
JUDGE_SANDBOX_IMAGES maps it to; the others in JUDGE_SANDBOX_IMAGE; a missing mapping is an IE
with a clear message, never a crash. The docker-marked tests judge problem 56 for real through
``manage.py judge --json`` in tensor-judge-sandbox:triton (Triton's interpreter on CPU)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from judge_site.worker.backends import ImageRoutingBackend
from judge_site.worker.engine import JudgeEngine
from judge_site.worker.images import SandboxImageError, image_for, requirement_images
from sandbox.grader.check import check_package
from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.package import load_package
from tests.conftest import require_image

REPO = Path(__file__).resolve().parents[2]
P56 = REPO / "problems" / "056-triton-embedding-gather"
TRITON_IMAGE = "tensor-judge-sandbox:triton"
DOCKER = {"JUDGE_BACKEND": "docker", "JUDGE_SANDBOX_IMAGE": "img:cpu"}


# --- the mapping ----------------------------------------------------------------------------


def test_the_default_maps_triton_to_the_triton_image() -> None:
    assert requirement_images() == {"triton": TRITON_IMAGE}
    assert image_for(["triton"]) == TRITON_IMAGE


@override_settings(JUDGE_SANDBOX_IMAGE="img:cpu", JUDGE_SANDBOX_IMAGES=["triton=img:t", "cutlass = img:t", "jax=img:j"])
def test_no_requirement_gets_the_default_image_and_requirements_their_one_image() -> None:
    assert image_for([]) == "img:cpu"
    assert image_for(["triton"]) == "img:t"
    assert image_for(["triton", "cutlass"]) == "img:t"  # spaces around '=' are tolerated


@override_settings(JUDGE_SANDBOX_IMAGES=["triton=img:t", "jax=img:j"])
def test_requirements_mapped_to_different_images_are_a_configuration_error() -> None:
    with pytest.raises(SandboxImageError, match="different images.*img:j, img:t"):
        image_for(["triton", "jax"])


@override_settings(JUDGE_SANDBOX_IMAGES=["jax=img:j"])
def test_an_unmapped_requirement_names_itself_and_the_setting() -> None:
    with pytest.raises(SandboxImageError, match=r"triton: add 'triton=IMAGE' to JUDGE_SANDBOX_IMAGES \(now jax=img:j\)"):
        image_for(["triton"])


@override_settings(JUDGE_SANDBOX_IMAGES=["triton:img"])
def test_a_malformed_entry_is_a_configuration_error() -> None:
    with pytest.raises(SandboxImageError, match="'triton:img' is not requirement=image"):
        image_for(["triton"])


# --- the backend ----------------------------------------------------------------------------


@override_settings(**DOCKER, JUDGE_SANDBOX_IMAGES=["triton=img:t"])
def test_the_docker_backend_gets_the_image_of_the_requirements() -> None:
    assert getattr(JudgeEngine().backend(requires=["triton"]), "image", None) == "img:t"
    assert getattr(JudgeEngine().backend(requires=[]), "image", None) == "img:cpu"
    routed = JudgeEngine().backend()
    assert isinstance(routed, ImageRoutingBackend) and routed.name == "docker"
    assert getattr(routed.default, "image", None) == "img:cpu"
    assert getattr(routed.for_requirements(["triton"]), "image", None) == "img:t"
    assert routed.for_requirements(["triton"]) is routed.for_requirements(["triton"])  # cached
    with pytest.raises(SandboxImageError):
        routed.for_requirements(["jax"])


@override_settings(**DOCKER, JUDGE_SANDBOX_IMAGES=[])
def test_judging_a_problem_whose_requirement_has_no_image_is_an_ie_not_a_crash() -> None:
    result = JudgeEngine().judge(load_package(P56), (P56 / "solution.py").read_text(), Mode.SUBMIT)
    assert result.verdict == Verdict.IE and result.tests == []
    assert "sandbox configuration" in result.message and "triton" in result.message
    assert result.problem_version == load_package(P56).version


@override_settings(JUDGE_BACKEND="local", JUDGE_ALLOW_LOCAL_BACKEND=True)
def test_the_local_backend_answers_ie_for_a_requirement_its_python_lacks(tmp_path: Path) -> None:
    """A worker on the local backend whose Python lacks a module the problem requires (triton,
    where it is not installed: the venv's lock has it, so a module no Python has stands in)."""
    copy = tmp_path / P56.name
    shutil.copytree(P56, copy, ignore=shutil.ignore_patterns("__pycache__", "solutions"))
    toml = copy / "problem.toml"
    toml.write_text(toml.read_text().replace('requires = ["triton"]', 'requires = ["triton", "no_such_module_here"]'))
    result = JudgeEngine().judge(load_package(copy), (copy / "solution.py").read_text(), Mode.SUBMIT)
    assert result.verdict == Verdict.IE
    assert "cannot import no_such_module_here" in result.message
    assert "JUDGE_BACKEND=docker" in result.message


@override_settings(**DOCKER, JUDGE_SANDBOX_IMAGES=["jax=img:j"])
def test_the_package_check_fails_not_skips_when_the_routing_backend_has_no_image() -> None:
    report = check_package(load_package(P56), JudgeEngine().backend(), bench=False)
    assert not report.skipped and not report.ok
    (item,) = report.items
    assert item.name == "sandbox image for requires ['triton']" and "JUDGE_SANDBOX_IMAGES" in item.detail


# --- for real, through Docker ---------------------------------------------------------------


def _manage_judge(file: Path) -> tuple[dict[str, object], float]:
    env = {**os.environ, "JUDGE_BACKEND": "docker", "JUDGE_SANDBOX_IMAGES": f"triton={TRITON_IMAGE}"}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "manage.py", "judge", "56", str(file), "--mode", "run", "--json"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout), took


@pytest.mark.docker
@pytest.mark.slow
# AC only, a Run: this proves that manage.py judge routes problem 56 to the triton image. Every
# tagged file of 56 gets its verdict in the local check (tests/catalog/test_catalog_check.py: the
# same runner and Triton), and 56's check through the site's docker backend, its benchmark with
# the Triton baseline included, runs in the triton image (tests/catalog/test_catalog_docker.py).
@pytest.mark.parametrize(("file", "verdict"), [("solutions/AC/column_blocks.py", "AC")])
def test_manage_judge_56_runs_in_the_triton_image(file: str, verdict: str) -> None:
    require_image(TRITON_IMAGE)
    result, took = _manage_judge(P56 / file)
    assert result["verdict"] == verdict, result
    env = result["environment"]
    assert isinstance(env, dict) and env.get("image") == TRITON_IMAGE, env
    assert env.get("triton") == "3.9.0", env  # the runner reports the sandbox's triton
    print(f"manage.py judge 56 {file}: {verdict} in {took:.1f} s")


@override_settings(JUDGE_GPU_ENABLED=False, JUDGE_SANDBOX_IMAGES=["triton=img:t"])
def test_the_routing_reads_the_same_image_map_and_a_bad_entry_refuses_with_its_reason() -> None:
    """routing.judging_route asks images.requirement_images, the engine's one parser: a GPU
    problem needing Triton is judged on CPU where the map has it; a malformed map refuses the
    problem with the parser's message (never an error page)."""
    from types import SimpleNamespace

    from judge_site.catalog.models import Device
    from judge_site.submissions.routing import judging_route

    problem: Any = SimpleNamespace(device=Device.GPU, number=7, manifest={"requires": ["triton"]})
    assert judging_route(problem).queue == "cpu"
    with override_settings(JUDGE_SANDBOX_IMAGES=["triton:img"]):
        refused = judging_route(problem)
    assert refused.queue is None and "is not requirement=image" in refused.note

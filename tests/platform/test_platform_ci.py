"""Tests that need Docker fail (not skip) when CI=true and no engine is usable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_smoke_test_without_docker(ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv only: no docker client on it
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "tests/platform/test_platform_compose.py::test_the_stack_is_healthy"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


@pytest.mark.slow
def test_a_docker_test_fails_in_ci_without_docker() -> None:
    proc = run_smoke_test_without_docker(ci=True)
    assert proc.returncode != 0, proc.stdout
    assert "CI=true but Docker is unusable" in proc.stdout


@pytest.mark.slow
def test_a_docker_test_skips_outside_ci_without_docker() -> None:
    proc = run_smoke_test_without_docker(ci=False)
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped" in proc.stdout

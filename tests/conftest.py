"""Suite-wide helpers.

Environment defaults for the suite (DEBUG, DATABASE_URL, REDIS_URL, JUDGE_BACKEND) are set in
judge_site/settings_test.py, because pytest-django reads settings before any conftest runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def docker_available() -> str | None:
    """None when a Docker engine answers, else why not (one line)."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    try:
        proc = subprocess.run(
            ["docker", "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        return "docker info timed out"
    if proc.returncode != 0:
        return f"no Docker engine: {proc.stderr.strip().splitlines()[-1:]}"
    return None


def require_docker() -> None:
    """Skip when no Docker engine answers, but FAIL in CI (CI=true), where one must exist."""
    why = docker_available()
    if why is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true but Docker is unusable: {why}")
    pytest.skip(f"Docker is unusable: {why}")


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """Use in tests that need a Docker engine: skips without one, fails when CI=true."""
    require_docker()

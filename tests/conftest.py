"""Suite-wide helpers.

Environment defaults for the suite (DEBUG, DATABASE_URL, REDIS_URL, JUDGE_BACKEND) are set in
judge_site/settings_test.py, because pytest-django reads settings before any conftest runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import NoReturn

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


def skip_or_fail(why: str) -> NoReturn:
    """Skip the test for ``why`` (something this machine lacks), but FAIL it in CI (CI=true),
    whose machine .ci/run prepares with everything: a CI run that skipped would prove nothing."""
    if IN_CI:
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


def require_docker() -> None:
    """Skip when no Docker engine answers, but FAIL in CI (CI=true), where one must exist."""
    why = docker_available()
    if why is not None:
        skip_or_fail(f"Docker is unusable: {why}")


def require_image(image: str) -> None:
    """Skip when the engine or ``image`` is missing, but FAIL in CI, where scripts/build_images
    built every image."""
    require_docker()
    proc = subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=60)
    if proc.returncode != 0:
        skip_or_fail(f"image {image} is not built: run scripts/build_images")


def require_triton() -> None:
    """Skip when triton is not installed, but FAIL in CI, whose venv is made from the lock (which
    has it). Does not import it: kernels.triton_* choose Triton's interpreter (no GPU) before
    their own import, and a Triton imported earlier without it cannot run their kernels on CPU."""
    import importlib.util

    if importlib.util.find_spec("triton") is None:
        skip_or_fail("triton is not installed here (requirements/lock.txt has it)")


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Cached pages are keyed by counters that start again in every test's fresh tables."""
    from django.conf import settings

    if settings.configured:
        from django.core.cache import cache

        cache.clear()


@pytest.fixture(autouse=True, scope="session")
def _api_schema_checked() -> None:
    """Every /api/v1 answer through the test client matches the OpenAPI document
    (tests/api_schema.py)."""
    import api_schema

    api_schema.install()


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """Use in tests that need a Docker engine: skips without one, fails when CI=true."""
    require_docker()


_SESSION_STARTED = __import__("time").time()
_TABLES = ("faults.txt",)  # tables that slow suites write under test-artifacts/


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Show the tables this run's slow suites wrote (the fault suite's recovery table), so CI's
    output carries them even when the tests passed and their own output was captured."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "test-artifacts"
    for name in _TABLES:
        path = folder / name
        if path.is_file() and path.stat().st_mtime >= _SESSION_STARTED:
            terminalreporter.section(name)
            for line in path.read_text().splitlines():
                terminalreporter.write_line(line)

"""Fixtures of the hostile suite: the Docker engine and the sandbox image, or skip.

Without the engine or the image the suite is skipped on a developer's machine and FAILS under
CI (CI=true): a CI run that silently skipped the hostile suite would prove nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import skip_or_fail


@pytest.fixture(scope="session")
def sandbox_image() -> str:
    return os.environ.get("JUDGE_SANDBOX_IMAGE", "tensor-judge-sandbox:cpu")


@pytest.fixture(scope="session")
def docker_client(sandbox_image: str) -> Any:
    try:
        import docker

        client = docker.from_env()
        client.ping()
        client.images.get(sandbox_image)
    except Exception as exc:  # no SDK, no engine, no image
        reason = (
            f"Docker engine or image {sandbox_image} unavailable "
            f"({exc.__class__.__name__}: {exc}); run scripts/build_images"
        )
    else:
        _refresh_image(sandbox_image)
        return client
    skip_or_fail(reason)


def _refresh_image(image: str) -> None:
    """Rebuild the sandbox image if the runner or kernels changed since it was built (a thin
    layer, seconds; a no-op when its content hash tag exists), so the suite never judges with
    a stale runner. JUDGE_SKIP_IMAGE_BUILD=1 turns this off."""
    if image != "tensor-judge-sandbox:cpu" or os.environ.get("JUDGE_SKIP_IMAGE_BUILD") == "1":
        return
    script = Path(__file__).resolve().parents[2] / "scripts" / "build_images"
    subprocess.run([str(script), "sandbox"], check=True, capture_output=True, timeout=600)

"""The CUDA emulation's tests: submissions under submissions/ (the verdict each must get is in its
name), each compiled once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox.cuda.build import compile

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """built("add_AC") -> the emulation library of submissions/add_AC.cu (compiled once; the
    emulator's core compiled once for the session, in a folder of its own)."""
    cache: dict[str, Path] = {}
    core = tmp_path_factory.mktemp("core")

    def get(name: str) -> Path:
        if name not in cache:
            source = (SUBMISSIONS / f"{name}.cu").read_text()
            cache[name] = compile(source, tmp_path_factory.mktemp(name), timeout_s=120,
                                  cache_dir=core)
        return cache[name]

    return get

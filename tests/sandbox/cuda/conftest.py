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
    """built("add_AC") -> the emulation library of submissions/add_AC.cu (compiled once)."""
    cache: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in cache:
            source = (SUBMISSIONS / f"{name}.cu").read_text()
            cache[name] = compile(source, tmp_path_factory.mktemp(name), timeout_s=120)
        return cache[name]

    return get

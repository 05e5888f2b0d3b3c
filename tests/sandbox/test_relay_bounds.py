"""The relay's bound on one wait (sandbox/host/relay_service.py Bounds.recv_s) admits every wait a
judging of the package asks for: a confined grader asking longer gets "bad timeout", and the
student an RE that is not theirs (a CUDA load's compile did, stop 45)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.grader.contracts import Limits, load_wait_s, program_wait_s
from sandbox.grader.package import load_package
from sandbox.host.confined import bounds_of
from sandbox.host.relay_service import Bounds

CATALOG = Path(__file__).resolve().parents[2] / "problems"
PACKAGES = sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file())


@pytest.mark.parametrize("folder", PACKAGES, ids=[p.name for p in PACKAGES])
def test_the_relay_admits_the_load_of_every_catalog_package(folder: Path) -> None:
    package = load_package(folder)
    bounds = bounds_of(package, 600.0)
    limits = package.limits
    assert load_wait_s(limits.time_s, package.requires, package.language) <= bounds.recv_s
    assert limits.time_s <= bounds.recv_s


def test_a_cuda_load_and_a_practice_program_fit_their_bounds() -> None:
    limits = Limits(time_s=60.0)
    plain = Bounds.of(limits, [], 600.0)
    cuda = Bounds.of(limits, [], 600.0, language="cuda")
    program = Bounds.of(limits, [], 600.0, harness=True)
    assert load_wait_s(60.0, [], "cuda") > plain.recv_s  # the case the bound once refused
    assert load_wait_s(60.0, [], "cuda") <= cuda.recv_s
    assert program_wait_s(60.0) > plain.recv_s and program_wait_s(60.0) <= program.recv_s

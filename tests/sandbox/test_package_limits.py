"""A package's [limits] are numbers within bounds: 0 is not "no limit", a table is a table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sandbox.grader.manifest import LIMIT_BOUNDS, stated_limits
from sandbox.grader.package import PackageError, load_package

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "problems" / "048-embedding-tied-head-padding"


def _package(tmp_path: Path, limits: str) -> Path:
    folder = tmp_path / SOURCE.name
    shutil.copytree(SOURCE, folder)
    toml = (folder / "problem.toml").read_text()
    head, _, rest = toml.partition("[limits]")
    tail = rest[rest.find("\n["):] if "\n[" in rest else ""
    (folder / "problem.toml").write_text(f"{head}{limits}\n{tail}")
    return folder


@pytest.mark.parametrize("limits,words", [
    ("limits = 5", "`limits` must be a table"),
    ("[limits]\nmemory_mib = 0", "limits.memory_mib = 0 is out of bounds"),
    ("[limits]\ntime_s = -1", "limits.time_s = -1 is out of bounds"),
    ("[limits]\ntime_s = nan", "limits.time_s = nan is out of bounds"),
    ("[limits]\noutput_kib = 99999999", "limits.output_kib = 99999999 is out of bounds"),
    ("[limits]\nmemory_mib = true", "limits.memory_mib must be an integer"),
    ("[limits]\nmemory_mib = \"1G\"", "limits.memory_mib must be an integer"),
    ("[limits]\nmemory_mib = 512.5", "limits.memory_mib must be an integer"),
    ("[limits]\nmemroy_mib = 512", "unknown limit 'memroy_mib'"),
])
def test_it_refuses_limits_out_of_shape_or_bounds(tmp_path: Path, limits: str,
                                                  words: str) -> None:
    with pytest.raises(PackageError) as refused:
        load_package(_package(tmp_path, limits))
    assert words in str(refused.value)


def test_a_zero_memory_limit_says_it_is_not_no_limit(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="0 is not 'no limit'"):
        load_package(_package(tmp_path, "[limits]\nmemory_mib = 0"))


def test_limits_within_bounds_load_as_given(tmp_path: Path) -> None:
    package = load_package(_package(tmp_path, "[limits]\ntime_s = 2\nmemory_mib = 512.0"))
    assert (package.limits.time_s, package.limits.memory_mib) == (2.0, 512)
    assert isinstance(package.limits.memory_mib, int)
    low = load_package(_package(tmp_path / "b", "[limits]\ntime_s = 0.1\noutput_kib = 1"))
    assert (low.limits.time_s, low.limits.output_kib) == (0.1, 1)
    assert set(LIMIT_BOUNDS) == {"time_s", "memory_mib", "output_kib"}


@pytest.mark.parametrize("stored,shown", [
    ({"limits": {"time_s": 2, "memory_mib": 512}}, {"time_s": 2, "memory_mib": 512}),
    ({}, {}),  # not stated: the runner's defaults, which the page does not show
    ({"limits": 5}, {}),
    ({"limits": {"time_s": "2", "pids": 9, "output_kib": True}}, {}),
])
def test_the_page_shows_the_limits_a_stored_manifest_states(stored: dict, shown: dict) -> None:
    assert stated_limits(stored) == shown

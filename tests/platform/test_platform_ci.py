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


def test_the_readme_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    first = readme[readme.index("\n## ") :].split("\n## ")[1]
    start = first.index("```sh\n") + 6
    block = first[start : first.index("\n```", start)]
    assert [line.split()[0] for line in block.splitlines()] == ["scripts/up", "scripts/test"]
    for script in ("up", "test", "backup", "restore"):
        assert os.access(ROOT / "scripts" / script, os.X_OK), script


def test_the_test_command_stops_at_once_naming_what_is_missing() -> None:
    env = dict(os.environ, REDIS_URL="redis://127.0.0.1:9/0")  # the discard port: closed
    env.pop("CI", None)
    proc = subprocess.run(
        [str(ROOT / "scripts" / "test"), "--collect-only"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing: Redis on 127.0.0.1:9 (REDIS_URL)" in lines[0], lines
    assert "apt-get install -y redis-server" in lines[0]


def test_no_two_test_modules_share_a_basename() -> None:
    """pytest imports a test module by its basename (the folders have no __init__.py): a second
    file of the same name stops the whole run at collection."""
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py") if "submissions" not in p.parts]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_the_tests_on_the_stack_share_one_work_unit_and_the_others_go_by_module(
    request: pytest.FixtureRequest,
) -> None:
    """The whole suite runs on xdist workers (scripts/test): a work unit goes whole to one
    worker. The compose stack starts once, so every test of this session that uses it is in the
    stack's unit, and so is every test that reads the toy's tagged judgings in theirs (the whole
    suite's session holds every test); a module's tests are in one unit; the named units that go
    first exist (a renamed file would silently lose its place)."""
    from tests.conftest import FIRST_UNITS, STACK_MODULES, TOY_WRONG_MODULES, work_unit

    for item in request.session.items:
        names = getattr(item, "fixturenames", ())
        if "stack" in names:
            assert work_unit(item.nodeid) == "stack", item.nodeid
        if "tagged_wrong_results" in names:
            assert work_unit(item.nodeid) == "toy-wrong", item.nodeid
    grader = "tests/sandbox/test_grader.py"
    assert work_unit(f"{grader}::test_c") == work_unit(f"{TOY_WRONG_MODULES[1]}::test_d[x]")
    kept = "tests/sandbox/test_kept.py"
    assert work_unit(f"{kept}::test_c") == work_unit(f"{kept}::test_d[x]") == kept
    assert FIRST_UNITS[0] == "stack"
    named = [*STACK_MODULES, *TOY_WRONG_MODULES, *FIRST_UNITS[1:]]
    assert [m for m in named if not (ROOT / m).is_file()] == []

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


def _sessions_of_the_test_command() -> dict[str, list[str]]:
    """The pytest arguments of scripts/test's three sessions, from its own lines."""
    script = (ROOT / "scripts" / "test").read_text()
    start = script.index("\nstack=(") + 1
    end = script.index("\n", script.index('for path in "${beside[@]}"; do stack+='))
    dump = 'for n in stack rest sandbox; do declare -n a="$n"; printf "%s\\0" "$n" "${#a[@]}" "${a[@]}"; done'
    out = subprocess.run(["bash", "-c", script[start:end] + "\n" + dump], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    fields, sessions = out.split("\0")[:-1], {}
    while fields:
        name, count = fields[0], int(fields[1])
        sessions[name], fields = fields[2 : 2 + count], fields[2 + count :]
    return sessions


def test_the_test_commands_sessions_run_every_test_file_once() -> None:
    """Each test file under tests/ is collected by exactly one of the whole suite's sessions:
    under one of its paths and under none of its --ignore's (counted as not collected even where
    pytest would take a file named among its paths: a file named inside a folder it also walks is
    dropped as a duplicate, so a session names folders, never files inside them)."""
    def under(file: str, path: str) -> bool:
        return file == path or file.startswith(path.rstrip("/") + "/")

    sessions = _sessions_of_the_test_command()
    assert set(sessions) == {"stack", "rest", "sandbox"}
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
                   if "submissions" not in p.parts and "fixtures" not in p.parts)
    runs: dict[str, list[str]] = {file: [] for file in files}
    for name, args in sessions.items():
        paths = [a for a in args if not a.startswith("-")]
        ignored = [a.split("=", 1)[1] for a in args if a.startswith("--ignore=")]
        for file in files:
            if any(under(file, p) for p in paths) and not any(under(file, i) for i in ignored):
                runs[file].append(name)
    assert {f: r for f, r in runs.items() if len(r) != 1} == {}
    assert runs["tests/browser/test_csp.py"] == ["rest"]  # moved beside the stack line
    assert runs["tests/browser/test_student_journey.py"] == ["stack"]

"""The join line of scripts/up (scripts/up.d/hosts.sh): what a worker host takes from it. A
line is pasted from elsewhere, so it may set the main host's addresses and credentials and
nothing else: not the compose files, images or mounts of the worker host."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def join_values(line: str) -> subprocess.CompletedProcess:
    script = 'log() { echo "$*" >&2; }; source scripts/up.d/hosts.sh; join_values "$1"'
    return subprocess.run(
        ["bash", "-c", script, "_", line], cwd=ROOT, capture_output=True, text=True, timeout=30
    )


def line_of(text: str) -> str:
    return "tj1:" + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


GOOD = (
    "JOIN_VERSION=1\n"
    "REDIS_URL=redis://worker:ab12@10.0.0.5:6379/0\n"
    "DATABASE_URL=postgres://judge_worker:cd34@10.0.0.5:5432/judge\n"
    "JUDGE_PACKAGE_SOURCE=http://10.0.0.5:8000\n"
    "JUDGE_WORKER_TOKEN=ef56\n"
)


def test_it_takes_the_main_hosts_addresses_and_credentials() -> None:
    proc = join_values(line_of(GOOD))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == GOOD


def test_it_refuses_a_line_that_sets_anything_else() -> None:
    proc = join_values(line_of(GOOD + "COMPOSE_FILE=evil.yml\n"))
    assert proc.returncode == 1
    assert "COMPOSE_FILE" in proc.stderr


def test_it_refuses_a_value_that_could_escape_the_env_file() -> None:
    proc = join_values(line_of(GOOD + "JUDGE_WORKER_TOKEN=$(reboot)\n"))
    assert proc.returncode == 1


def test_it_refuses_what_is_not_a_join_line() -> None:
    assert join_values("hello").returncode == 1
    assert join_values("tj1:%%%").returncode == 1

"""Configuration errors are one clear line naming the variable; production mode is guarded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL_KEY = "k" * 20 + "-Zq8v3Lr0wPn5Xy2Tm7Bc4Hs9Jd6Gf1Ke"  # 54 chars, not the dev default


def manage(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    """Run manage.py in a clean environment: only what a shell needs, plus `env`.

    Nothing leaks in from the suite (DEBUG, SECRET_KEY, URLs, DJANGO_ALLOW_ASYNC_UNSAFE, ...).
    """
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV")
    base = {k: os.environ[k] for k in keep if k in os.environ}
    base["DJANGO_SETTINGS_MODULE"] = "judge_site.settings"
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


def test_it_refuses_production_without_a_secret_key() -> None:
    proc = manage("check", env={"DEBUG": "false"})
    assert proc.returncode == 2
    assert_one_line(proc, "SECRET_KEY")


def test_it_refuses_the_development_key_in_production() -> None:
    key = "dev-only-insecure-key-do-not-use-in-production"
    proc = manage("check", env={"DEBUG": "false", "SECRET_KEY": key})
    assert_one_line(proc, "SECRET_KEY")


def test_it_names_a_malformed_boolean() -> None:
    proc = manage("check", env={"DEBUG": "maybe"})
    assert_one_line(proc, "DEBUG=", "boolean")


def test_it_names_a_garbage_database_url() -> None:
    proc = manage("check", env={"DEBUG": "true", "DATABASE_URL": "nonsense://x"})
    assert_one_line(proc, "DATABASE_URL")


def test_it_names_a_garbage_redis_url() -> None:
    proc = manage("check", env={"DEBUG": "true", "REDIS_URL": "localhost:6379"})
    assert_one_line(proc, "REDIS_URL")


def test_it_names_an_unreachable_database_without_leaking_the_password() -> None:
    url = "postgres://judge:hunter2secret@127.0.0.1:1/judge"
    proc = manage("wait_for_services", env={"DEBUG": "true", "DATABASE_URL": url})
    line = assert_one_line(proc, "DATABASE_URL", "127.0.0.1:1")
    assert "hunter2secret" not in proc.stderr + proc.stdout
    assert "REDIS_URL" not in line  # Redis is up: only the broken one is named


def test_it_names_an_unreachable_redis() -> None:
    env = {
        "DEBUG": "true",
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
        "REDIS_URL": "redis://127.0.0.1:1/0",
    }
    proc = manage("wait_for_services", env=env)
    line = assert_one_line(proc, "REDIS_URL", "127.0.0.1:1")
    assert "DATABASE_URL" not in line


def test_it_reports_services_ok_when_both_answer() -> None:
    env = {"DEBUG": "true", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres"}
    proc = manage("wait_for_services", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "services ok" in proc.stdout


def test_it_passes_the_deploy_check_in_production_mode() -> None:
    env = {"DEBUG": "false", "SECRET_KEY": REAL_KEY, "ALLOWED_HOSTS": "judge.example.org"}
    proc = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues" in proc.stdout


def test_it_refuses_the_local_backend_in_production() -> None:
    env = {"DEBUG": "false", "SECRET_KEY": REAL_KEY, "JUDGE_BACKEND": "local"}
    proc = manage("check", env=env)
    assert_one_line(proc, "JUDGE_BACKEND")


@pytest.mark.django_db
def test_migrations_are_clean() -> None:
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)

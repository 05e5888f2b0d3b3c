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


# A line of version 2 (TLS): the URLs name the CA file (the worker's entrypoint writes
# JUDGE_TLS_CA there) with "?" and "&"; the CA is the base64 of its PEM.
GOOD_TLS = (
    "JOIN_VERSION=2\n"
    "REDIS_URL=rediss://worker:ab12@10.0.0.5:6379/0?ssl_cert_reqs=required"
    "&ssl_ca_certs=/tmp/tensor-judge-ca.pem\n"
    "DATABASE_URL=postgres://judge_worker:cd34@10.0.0.5:5432/judge?sslmode=verify-full"
    "&sslrootcert=/tmp/tensor-judge-ca.pem\n"
    "JUDGE_PACKAGE_SOURCE=http://10.0.0.5:8000\n"
    "JUDGE_WORKER_TOKEN=ef56\n"
    f"JUDGE_TLS_CA={base64.b64encode(b'-----BEGIN CERTIFICATE-----').decode()}\n"
)


def test_it_takes_a_line_with_tls_and_still_one_from_before() -> None:
    for text in (GOOD_TLS, GOOD):  # GOOD: version 1, no CA (worker_up then warns)
        proc = join_values(line_of(text))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == text


def test_it_refuses_a_line_that_sets_anything_else() -> None:
    proc = join_values(line_of(GOOD + "COMPOSE_FILE=evil.yml\n"))
    assert proc.returncode == 1
    assert "COMPOSE_FILE" in proc.stderr


def test_it_refuses_a_value_that_could_escape_the_env_file() -> None:
    proc = join_values(line_of(GOOD + "JUDGE_WORKER_TOKEN=$(reboot)\n"))
    assert proc.returncode == 1
    for value in ("a\\b", "a b", "a'b", "${HOME}", "a#b"):
        proc = join_values(line_of(GOOD + f"JUDGE_TLS_CA={value}\n"))
        assert proc.returncode == 1, value


def test_it_refuses_what_is_not_a_join_line() -> None:
    assert join_values("hello").returncode == 1
    assert join_values("tj1:%%%").returncode == 1

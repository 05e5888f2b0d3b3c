"""docker-compose.publish.yml (what scripts/up --join-line adds), as compose reads it over the
stack's files: Redis and Postgres published over TLS only, the CA's key in a volume no running
service mounts. No engine needed: `docker compose config` only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "platform"))

from compose_stack import compose_binary  # noqa: E402

FILES = ["-f", "docker-compose.yml", "-f", "docker-compose.offline.yml",
         "-f", "docker-compose.publish.yml"]  # fmt: skip


@pytest.fixture(scope="module")
def services() -> dict:
    env = dict(os.environ, SECRET_KEY="x" * 50, POSTGRES_PASSWORD="pw", REDIS_PASSWORD="rp",
               JUDGE_WORKER_DB_PASSWORD="wp", JUDGE_WORKER_BIND="10.0.0.5",
               JUDGE_REDIS_PORT="16379", JUDGE_POSTGRES_PORT="15432")  # fmt: skip
    proc = subprocess.run(
        [*compose_binary(), "--env-file", os.devnull, *FILES, "--profile", "tls-certs",
         "config", "--format", "json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["services"]


def _mounts(service: dict) -> dict[str, tuple[str, bool]]:
    return {v["target"]: (Path(v["source"]).name, bool(v.get("read_only")))
            for v in service.get("volumes", [])}  # fmt: skip


def test_redis_publishes_its_tls_port_only(services: dict) -> None:
    redis = services["redis"]
    assert [(p["host_ip"], p["published"], p["target"]) for p in redis["ports"]] == [
        ("10.0.0.5", "16379", 6380)]  # fmt: skip
    mounts = _mounts(redis)
    assert mounts["/tls"] == ("tls", True)
    assert mounts["/usr/local/etc/tensor-judge/redis.conf"] == ("redis-tls.conf", True)
    assert redis["command"][1] == "/usr/local/etc/tensor-judge/redis.conf"
    conf = (ROOT / "docker" / "redis-tls.conf").read_text()
    assert "tls-port 6380\n" in conf and "tls-cert-file /tls/server.pem\n" in conf


def test_postgres_starts_through_the_tls_wrapper(services: dict) -> None:
    postgres = services["postgres"]
    assert [(p["host_ip"], p["published"], p["target"]) for p in postgres["ports"]] == [
        ("10.0.0.5", "15432", 5432)]  # fmt: skip
    assert postgres["entrypoint"] == ["/bin/sh", "/usr/local/bin/postgres-tls.sh"]
    mounts = _mounts(postgres)
    assert mounts["/tls"] == ("tls", True)
    assert mounts["/usr/local/bin/postgres-tls.sh"] == ("postgres-tls.sh", True)


def test_the_cas_key_is_mounted_by_the_certificate_tool_alone(services: dict) -> None:
    holders = {n for n, s in services.items() if any(
        Path(v.get("source", "")).name == "tls-ca" for v in s.get("volumes", []))}  # fmt: skip
    assert holders == {"tls-certs"}
    tool = services["tls-certs"]
    assert tool["profiles"] == ["tls-certs"] and tool["network_mode"] == "none"
    assert not tool.get("ports")

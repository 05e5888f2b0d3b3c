"""The Redis that worker hosts reach (docker-compose.yml's redis command, docker/redis-tls.conf,
certificates of docker/tls_certs.py), run here as the stack runs it: a real redis-server with
the compose file's ACL user "worker" and its TLS port. A worker's credentials reach what
judging needs and nothing else (never the page cache, the web's rate-limit keys or a queue of
the main host's); a client without the CA, with another name or in plain TCP gets nothing.

What judging needs was found by running a Celery worker of this code under this ACL (ACL LOG
names every refusal); tests/platform/test_platform_hosts.py proves it end to end (a worker
host judges through it)."""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "worker-test-password"
ADMIN = "admin-test-password"
SEP = "\x06\x16"  # kombu's priority separator (judge_site/submissions/broker.py)


def worker_acl() -> list[str]:
    """The redis-server arguments of the user "worker", from docker-compose.yml."""
    text = (ROOT / "docker-compose.yml").read_text()
    block = re.search(r'command: \["redis-server",(.*?)\]\n', text, re.S)
    assert block, "docker-compose.yml: the redis command"
    items = re.findall(r'"((?:[^"\\]|\\.)*)"', block.group(1))
    args = items[items.index("--user") :]
    digest = hashlib.sha256(PASSWORD.encode()).hexdigest()
    return [re.sub(r"\$\{REDIS_WORKER_PASSWORD_SHA256:-0+\}", digest, a) for a in args]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    binary = shutil.which("redis-server")
    if binary is None:
        from conftest import skip_or_fail

        skip_or_fail("redis-server is not installed here")
    tmp = tmp_path_factory.mktemp("redis-tls")
    made = subprocess.run(
        [sys.executable, str(ROOT / "docker" / "tls_certs.py"), "make", "127.0.0.1",
         "--ca-dir", str(tmp / "ca"), "--out-dir", str(tmp / "tls")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    conf = (ROOT / "docker" / "redis-tls.conf").read_text().replace("/tls/", f"{tmp}/tls/")
    port, tls_port = _free_port(), _free_port()
    conf = re.sub(r"(?m)^tls-port .*$", f"tls-port {tls_port}", conf)
    (tmp / "redis.conf").write_text(conf)
    proc = subprocess.Popen(
        [binary, str(tmp / "redis.conf"), "--port", str(port), "--bind", "127.0.0.1",
         "--save", "", "--appendonly", "no", "--dir", str(tmp), "--requirepass", ADMIN,
         *worker_acl()],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        admin = redis.Redis(port=port, password=ADMIN)
        deadline = time.monotonic() + 20
        while True:
            try:
                admin.ping()
                break
            except redis.ConnectionError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
        yield {"tls_port": tls_port, "ca": str(tmp / "tls" / "ca.pem"), "admin": admin}
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def as_worker(server: dict, host: str = "127.0.0.1", ca: str | None = None) -> redis.Redis:
    return redis.Redis(
        host=host, port=server["tls_port"], username="worker", password=PASSWORD, ssl=True,
        ssl_ca_certs=ca or server["ca"], ssl_cert_reqs="required", socket_timeout=5,
    )  # fmt: skip


def test_a_worker_reaches_what_judging_needs(server: dict) -> None:
    worker = redis.Redis.from_url(
        f"rediss://worker:{PASSWORD}@127.0.0.1:{server['tls_port']}/0"
        f"?ssl_cert_reqs=required&ssl_ca_certs={server['ca']}"
    )  # the URL of a join line, as the worker's redis-py clients read it
    assert worker.ping()
    for queue in ("cpu", f"cpu{SEP}3", "gpu", f"gpu{SEP}9", "gpu-rejudge", "rejudge"):
        worker.lpush(queue, "m")
        assert worker.rpop(queue) == b"m"
    worker.sadd("_kombu.binding.cpu", "cpu")
    worker.zadd("_kombu.binding_deadlines", {"cpu": 1})
    worker.hset("unacked", "tag", "m")
    worker.zadd("unacked_index", {"tag": 1})
    worker.set("unacked_mutex", "x", nx=True, ex=5)
    worker.lpush("0f1e.reply.celery.pidbox", "pong")
    worker.set("celery-task-meta-0f1e", "{}", ex=5)
    worker.set("tensor-judge:worker:cpu@host", "{}", ex=5)
    worker.hset("tensor-judge:hosts", "cpu@host", "{}")
    worker.publish("/0.celery.pidbox", "m")
    worker.publish("/0.celeryev/worker.heartbeat", "m")


@pytest.mark.parametrize(
    "command",
    [
        ("GET", "judge-cache:1:board:1"),  # the page cache (KEY_PREFIX judge-cache)
        ("SET", "judge-cache:1:board:1", "forged"),
        ("INCR", "judge-cache:1:api-rate:7"),  # the web's rate limits live in the cache
        ("LRANGE", "maintenance", "0", "-1"),  # beat's queue (reaper, mail, LTI grades)
        ("LPUSH", "maintenance", "forged"),
        ("LPUSH", "mail", "forged"),
        ("GET", "any-other-key"),
        ("PUBLISH", "judge-cache", "x"),
        ("CONFIG", "SET", "dir", "/tmp"),
        ("FLUSHALL",),
        ("KEYS", "*"),
    ],
)
def test_a_worker_touches_nothing_else(server: dict, command: tuple[str, ...]) -> None:
    server["admin"].set("judge-cache:1:board:1", "page")
    with pytest.raises(redis.exceptions.NoPermissionError):
        as_worker(server).execute_command(*command)
    assert server["admin"].get("judge-cache:1:board:1") == b"page"


def test_without_the_ca_or_tls_or_the_right_name_nothing_is_served(
    server: dict, tmp_path: Path
) -> None:
    other = tmp_path / "other-ca.pem"
    subprocess.run(
        [sys.executable, str(ROOT / "docker" / "tls_certs.py"), "ca",
         "--ca-dir", str(tmp_path / "ca"), "--out-dir", str(tmp_path / "tls")],
        stdout=other.open("w"), check=True, timeout=60,
    )  # fmt: skip
    with pytest.raises(redis.ConnectionError, match="certificate verify failed"):
        as_worker(server, ca=str(other)).ping()  # another CA (or none: the system's)
    with pytest.raises(redis.ConnectionError):
        as_worker(server, host="localhost").ping()  # the certificate names 127.0.0.1 only
    # Plain TCP on the TLS port: the server closes the connection without a word.
    with socket.create_connection(("127.0.0.1", server["tls_port"]), timeout=5) as sock:
        sock.sendall(f"AUTH worker {PASSWORD}\r\nPING\r\n".encode())
        try:
            answer = sock.recv(100)
        except ConnectionResetError:
            answer = b""
    assert answer == b""
    context = ssl.create_default_context()  # the system's CAs, not ours
    with pytest.raises(ssl.SSLCertVerificationError):
        with socket.create_connection(("127.0.0.1", server["tls_port"]), timeout=5) as sock:
            context.wrap_socket(sock, server_hostname="127.0.0.1")

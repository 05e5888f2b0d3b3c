"""A second machine joins the judge (README, "More machines"), simulated on this one as
faithfully as one machine allows: the worker host is a compose project of its own, started by
`scripts/up --worker LINE` with an env file of its own, with no volume shared with the main
host and no network of the main host's: it reaches the main host's Redis and Postgres only
through the ports `scripts/up --join-line` published on 127.0.0.1 (so its containers live in
the machine's network namespace, as a remote host's would reach a private address).

One test, on the shared stack (conftest.py), because each step needs the one before: the line,
the published ports that speak TLS only and refuse a stranger (plain TCP, a client without the
line's CA, no credentials; the worker's Redis user narrow), a student's Run of problem 48
through the API judged on the second host with the main host's worker stopped
(environment.host names it), the certificates rotated (scripts/up --rotate-certs), then a
problem uploaded on the main host, judged there too (its version fetched by hash),
then the main host's worker back, a burst judged on both hosts, and the second host's worker
killed while it holds a judging: every judging of the burst ends AC, what the dead host held
on the main host, none judged to the end twice (each worker logs "submission N: judged" once
per verdict it writes).
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import ssl
import subprocess
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from compose_stack import ROOT, Stack, compose_binary, free_port

pytestmark = [pytest.mark.docker, pytest.mark.slow]

BURST_SIZE = 4
SLEEP_S = 2  # each judging's import sleeps this long: the burst is in flight when the host dies

BURST = """
import json
from pathlib import Path
from django.contrib.auth import get_user_model
from judge_site.catalog.models import Problem
from judge_site.submissions.services import submission_create
problem = Problem.objects.get(number=48)
code = "import time\\ntime.sleep({sleep_s})\\n" + Path("{path}").read_text()
ids = []
for i in range({count}):
    user, _ = get_user_model().objects.get_or_create(username=f"hosts-{{i}}")
    ids.append(submission_create(user, problem, code, "run").pk)
print("IDS", json.dumps(ids))
"""


API_USER = """
from django.contrib.auth import get_user_model
from judge_site.accounts.tokens import token_issue
user, _ = get_user_model().objects.get_or_create(username="hosts-api")
print("KEY", token_issue(user)[1])  # stored hashed: a new token each time, shown once
"""

# The tiny package of tests/tiny_package.py, uploaded as staff does, checked (on the
# main host's rejudge worker), activated and published; its zip comes on stdin.
UPLOAD = """
import sys, time
from django.contrib.auth import get_user_model
from judge_site.staff.models import ProblemVersion
from judge_site.staff.services.packages import (
    package_upload, problem_set_published, version_activate)
admin = get_user_model().objects.filter(is_superuser=True).first()
version = package_upload(admin, sys.stdin.buffer.read(), "tiny.zip")
for _ in range(300):
    version.refresh_from_db()
    if version.check_status not in ("pending", "running"):
        break
    time.sleep(1)
problem = version_activate(admin, version)
problem_set_published(admin, problem, True)
print("UPLOADED", problem.number, version.check_status)
"""


def _api(stack: Stack, key: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        stack.url + path, data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {key}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _api_run(stack: Stack, key: str, problem: int, code: str, show: Callable[[], str]) -> dict:
    """A Run through the API, followed until its verdict."""
    sid = _api(stack, key, "/api/v1/submissions", {"problem": problem, "code": code,
                                                     "mode": "run"})["id"]  # fmt: skip
    result: dict = {}

    def done() -> bool:
        result.update(_api(stack, key, f"/api/v1/submissions/{sid}"))
        return result["status"] == "done"

    _wait(f"the Run of problem {problem} judged", 180, done, show)
    return result


class WorkerHost:
    """The second machine: a compose project of its own, driven as its self-hoster would."""

    def __init__(self, stack: Stack, env_file: Path) -> None:
        self.project = f"{stack.project}w"
        self.name = f"{stack.project}-second-host"
        self.env_file = env_file
        self.env = {
            "JUDGE_ENV_FILE": str(env_file),
            "COMPOSE_PROJECT_NAME": self.project,
            "JUDGE_IMAGES": "offline",
            # The main stack's images (same checkout, same layers): nothing to build again.
            "JUDGE_IMAGE_TAG": stack.env["JUDGE_IMAGE_TAG"],
            "JUDGE_HOST_NAME": self.name,
            "WORKER_CONCURRENCY": "2",
            "JUDGE_SANDBOX_POOL_SIZE": "1",  # fewer warm sandboxes to start: CI's CPUs
        }
        # Its Celery node: in the machine's network namespace, named after the machine.
        self.node = f"cpu@{socket.gethostname()}"

    def up(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(ROOT / "scripts" / "up"), *args], cwd=ROOT, env={**os.environ, **self.env},
            capture_output=True, text=True, timeout=1200,
        )  # fmt: skip

    def compose(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*compose_binary(), "--env-file", str(self.env_file), *args], cwd=ROOT,
            env={**os.environ, **self.env}, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip


def _psql(stack: Stack, sql: str) -> list[list[str]]:
    proc = stack.psql(sql)
    assert proc.returncode == 0, proc.stderr
    return [line.split("|") for line in proc.stdout.splitlines() if line.strip()]


def _states(stack: Stack, ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
    """Status, verdict, environment.host and the Celery node that claimed it last."""
    rows = _psql(
        stack,
        "select id, status, verdict, coalesce(environment->>'host', ''), worker "
        f"from submissions_submission where id in ({','.join(map(str, ids))})",
    )
    return {int(r[0]): (r[1], r[2], r[3], r[4]) for r in rows}


def _published(stack: Stack, service: str, port: int) -> str:
    """Where the service's port is published ("" when it is not: compose says ":0")."""
    address = stack.compose("port", service, str(port)).stdout.strip()
    return "" if address in {"", ":0"} else address


def _redis_says(port: int, ca: Path | None, *commands: str) -> list[str]:
    """The first line of Redis's answer to each inline command, on one connection: TLS
    checked against ``ca`` (and the name 127.0.0.1), or plain TCP where ``ca`` is None."""
    answers = []
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        sock = raw
        if ca is not None:
            context = ssl.create_default_context(cafile=str(ca))
            sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
        reader = sock.makefile("rb")
        for command in commands:
            try:
                sock.sendall(command.encode() + b"\r\n")
                answers.append(reader.readline().decode().strip())
            except ConnectionError:
                answers.append("")
    return answers


def _served_certificate(port: int, ca: Path) -> str:
    """The certificate the TLS port serves (PEM), checked against ``ca``."""
    context = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
            der = sock.getpeercert(binary_form=True)
    assert der
    return ssl.DER_cert_to_PEM_cert(der)


def _judged(logs: str) -> Counter[int]:
    return Counter(int(m) for m in re.findall(r"submission (\d+): judged [A-Z]+ \(attempt", logs))


def _wait(what: str, within_s: float, check: Callable[[], bool], show: Callable[[], str]) -> None:
    deadline = time.monotonic() + within_s
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {within_s:.0f} s\n{show()}"
        time.sleep(0.5)


def _remove_sandboxes_of_this_machine_name() -> None:
    """The killed worker's sandboxes (its judging's, its warm ones): labelled with its node
    and host name, which in the machine's network namespace are the machine's (the main
    stack's workers, in containers, have their containers' ids)."""
    import docker

    from sandbox.host.backends.docker import listed_labels

    host = socket.gethostname()
    client = docker.from_env()
    # sparse: the list's own fields, no inspect per container (another run's may go meanwhile)
    for container in client.containers.list(
        all=True, sparse=True, filters={"label": "tensor-judge.sandbox"}
    ):
        labels = listed_labels(container)
        if (
            labels.get("tensor-judge.pool-owner") == host
            or labels.get("tensor-judge.worker") == f"cpu@{host}"
        ):
            container.remove(force=True)


def test_a_second_host_joins_judges_and_loses_nothing_when_it_dies(
    stack: Stack, tmp_path: Path
) -> None:
    redis_port, postgres_port = free_port(), free_port()
    begun = time.monotonic()
    # Before any join line: nothing but the web port is published.
    assert _published(stack, "redis", 6379) == _published(stack, "postgres", 5432) == ""

    joined = stack.script(
        "up", "--join-line", JUDGE_WORKER_BIND="127.0.0.1",
        JUDGE_REDIS_PORT=str(redis_port), JUDGE_POSTGRES_PORT=str(postgres_port),
    )  # fmt: skip
    line = joined.stdout.strip()
    assert line.startswith("tj1:") and "\n" not in line and " " not in line, joined.stdout
    print(f"scripts/up --join-line (the stack recreated): {time.monotonic() - begun:.0f} s")
    again = stack.script("up", "--join-line")  # the same line: the credentials are made once
    assert again.stdout.strip() == line
    # Published: Redis's TLS port (its plain one stays inside the compose network) and Postgres.
    for service, port in (("redis", 6380), ("postgres", 5432)):
        published = _published(stack, service, port)
        assert published.startswith("127.0.0.1:"), (service, published)
    assert _published(stack, "redis", 6379) == ""

    # The published ports speak TLS only, refuse whoever has no credentials, and the worker's
    # are narrow.
    values = dict(
        entry.split("=", 1)
        for entry in subprocess.run(
            ["bash", "-c", "source scripts/up.d/hosts.sh; printf %s \"$1\" | b64url_decode",
             "_", line[4:]], cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.splitlines()
    )  # fmt: skip
    assert values["JOIN_VERSION"] == "2", values
    ca = tmp_path / "ca.pem"  # the line's CA, where this machine's clients read it
    ca.write_bytes(base64.b64decode(values["JUDGE_TLS_CA"]))
    in_worker = "/tmp/tensor-judge-ca.pem"  # the file the URLs name in a worker's container
    assert values["REDIS_URL"].endswith(f"?ssl_cert_reqs=required&ssl_ca_certs={in_worker}")
    assert values["DATABASE_URL"].endswith(f"?sslmode=verify-full&sslrootcert={in_worker}")
    worker_redis_pw = re.match(r"rediss://worker:([^@?]+)@", values["REDIS_URL"])
    assert worker_redis_pw, values["REDIS_URL"]
    # Plain TCP, or TLS without the line's CA (the system's CAs): nothing is served.
    assert _redis_says(redis_port, None, f"AUTH worker {worker_redis_pw.group(1)}") == [""]
    with pytest.raises(ssl.SSLCertVerificationError):
        with socket.create_connection(("127.0.0.1", redis_port), timeout=10) as raw:
            ssl.create_default_context().wrap_socket(raw, server_hostname="127.0.0.1")
    answers = _redis_says(
        redis_port, ca, "PING", "CONFIG GET dir", f"AUTH worker {worker_redis_pw.group(1)}",
        "PING", "CONFIG SET dir /tmp", "FLUSHALL", "GET judge-cache:1:x", "LLEN maintenance",
        "LLEN cpu",
    )  # fmt: skip
    assert answers[0].startswith("-NOAUTH") and answers[1].startswith("-NOAUTH"), answers
    assert answers[2:4] == ["+OK", "+PONG"], answers
    assert all(a.startswith("-NOPERM") for a in answers[4:8]), answers
    assert answers[8].startswith(":"), answers
    for user, password in (("judge", ""), ("judge_worker", ""), ("judge", "guess")):
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(
                host="127.0.0.1", port=postgres_port, user=user, password=password,
                dbname="judge", connect_timeout=10, sslrootcert=str(ca), sslmode="verify-full",
            ).close()  # fmt: skip
    worker_url = values["DATABASE_URL"].replace(in_worker, str(ca))
    # The worker's own credentials in plain TCP, or TLS without the CA: refused.
    for mode in ("disable", "verify-full"):
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(
                worker_url.split("?")[0], sslmode=mode, connect_timeout=10,
                sslrootcert=str(tmp_path / "none.pem"),
            ).close()  # fmt: skip
    with psycopg.connect(worker_url, connect_timeout=10) as worker_db:
        row = worker_db.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        assert row.fetchone() == (True,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            worker_db.execute("SELECT password FROM auth_user")

    second = WorkerHost(stack, tmp_path / "worker.env")
    try:
        started = time.monotonic()
        up = second.up("--worker", line)
        assert up.returncode == 0, up.stderr[-4000:]
        print(f"scripts/up --worker: {time.monotonic() - started:.0f} s")
        assert f"Worker host {second.name} is judging queues cpu" in up.stdout
        containers = second.compose("ps", "-q").stdout.split()
        assert len(containers) == 1, containers
        mounts = json.loads(
            subprocess.run(["docker", "inspect", containers[0]], capture_output=True,
                           text=True, check=True).stdout
        )[0]["Mounts"]  # fmt: skip
        volumes = {m["Name"] for m in mounts if m["Type"] == "volume"}
        assert volumes and all(v.startswith(second.project + "_") for v in volumes), volumes

        stopped = stack.compose("stop", "-t", "30", "worker")
        assert stopped.returncode == 0, stopped.stderr
        accepted = sorted(ROOT.glob("problems/048-*/solutions/AC/*.py"))
        path = "/app/" + str(accepted[0].relative_to(ROOT))

        def show_second() -> str:
            logs = second.compose("logs", "--no-color", "--tail", "40", "worker").stdout
            return f"the second host's worker:\n{logs}"

        # A student's Run through the API, judged on the second host alone, which says so.
        out = stack.manage("web", "shell", "-c", API_USER)
        key = out[out.index("KEY ") + 4 :].split()[0]
        result = _api_run(stack, key, 48, accepted[0].read_text(), show_second)
        assert (result["verdict"], result["environment"]["host"]) == ("AC", second.name), result
        # New server certificates from the same CA, loaded without a restart: the line's CA
        # still checks them, and the second host goes on judging.
        before = _served_certificate(redis_port, ca)
        stack.script("up", "--rotate-certs")
        assert _served_certificate(redis_port, ca) != before
        with psycopg.connect(worker_url, connect_timeout=10) as worker_db:
            worker_db.execute("SELECT 1")
        # A problem uploaded on the main host: the second host fetches its version by
        # content hash from the main host's web (no shared disk) and judges it.
        from tiny_package import NUMBER, package_zip

        done = subprocess.run(
            [*compose_binary(), "-p", stack.project, "--env-file", str(stack.env_file),
             "exec", "-T", "web", "python3", "manage.py", "shell", "-c", UPLOAD],
            cwd=ROOT, env={**os.environ, **stack.env}, input=package_zip(tmp_path),
            capture_output=True, timeout=600,
        )  # fmt: skip
        uploaded = done.stdout.decode()
        assert f"UPLOADED {NUMBER} passed" in uploaded, (
            uploaded[-2000:] + done.stderr.decode()[-3000:]
        )
        result = _api_run(stack, key, NUMBER, "def double(x):\n    return x * 2\n", show_second)
        assert (result["verdict"], result["environment"]["host"]) == ("AC", second.name)
        # The main host's worker comes back: the burst is judged on both hosts.
        since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert stack.compose("start", "worker").returncode == 0
        _wait("the main host's worker ready", 180,
              lambda: " ready." in stack.compose("logs", "--since", since, "worker").stdout,
              show_second)  # fmt: skip
        out = stack.manage(
            "web", "shell", "-c", BURST.format(sleep_s=SLEEP_S, path=path, count=BURST_SIZE)
        )
        ids: list[int] = json.loads(out[out.index("IDS ") + 4 :].splitlines()[0])

        def show() -> str:
            logs = second.compose("logs", "--no-color", "--tail", "40", "worker").stdout
            return f"states: {_states(stack, ids)}\nthe second host's worker:\n{logs}"

        def running_there() -> list[int]:
            return [
                sid
                for sid, s in _states(stack, ids).items()
                if s[0] == "running" and s[3] == second.node
            ]

        # The second host dies in the middle of the burst, holding a judging.
        _wait("a judging of the burst running on the second host", 240,
              lambda: bool(running_there()), show)  # fmt: skip
        killed = second.compose("kill", "-s", "SIGKILL", "worker")
        assert killed.returncode == 0, killed.stderr
        killed_at = time.monotonic()
        held = running_there()
        assert held, "the judging ended before the kill: nothing was held by the dead host"

        def all_done() -> bool:
            return all(s[0] == "done" for s in _states(stack, ids).values())

        _wait("every judging of the burst done", 300, all_done, show)
        print(f"the dead host's judgings finished {time.monotonic() - killed_at:.0f} s after")
        states = _states(stack, ids)
        assert Counter(s[1] for s in states.values()) == Counter({"AC": BURST_SIZE}), states
        # What the dead host held was finished by the main host (its container's name).
        assert all(states[sid][2] not in {"", second.name} for sid in held), (held, states)

        judged = _judged(second.compose("logs", "--no-color", "worker").stdout)
        judged.update(_judged(stack.compose("logs", "--no-color", "worker").stdout))
        assert all(judged[sid] == 1 for sid in ids), {sid: judged[sid] for sid in ids}
    finally:
        _remove_sandboxes_of_this_machine_name()
        if stack.compose("ps", "-q", "--status", "running", "worker").stdout.strip() == "":
            stack.compose("start", "worker")
        if second.env_file.exists():
            down = second.up("--down")
            assert down.returncode == 0, down.stderr[-2000:]
            assert not second.compose("ps", "-a", "-q").stdout.strip(), "--down left containers"
            second.compose("down", "-v")

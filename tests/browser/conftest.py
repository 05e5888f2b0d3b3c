"""The browser suite: real headless Chromium (Debian's package) through Playwright, against
pytest-django's live server, with a real Celery worker process judging on a queue of its own.

Needs Redis and Postgres (as the rest of the suite), /usr/bin/chromium, and the front-end
assets (scripts/build_assets; run here once when missing). Without Chromium the suite skips,
except with CI=true, where it fails.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
IN_CI = os.environ.get("CI", "").lower() == "true"
# Injected by the browser itself (not subject to the page's CSP): reports each violation on the
# console, where the page fixture collects it.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error("CSP_VIOLATION " + event.violatedDirective + " " + (event.blockedURI || "inline")
    + " at " + (event.sourceFile || "") + ":" + (event.lineNumber || 0));
});
"""
PROBLEM_48 = ROOT / "problems" / "048-embedding-tied-head-padding"

# Playwright's sync API keeps an event loop running in this thread for as long as the
# session-scoped browser lives (to the end of the session), and every later test's ORM calls
# (and pytest-django's own teardown) are plain synchronous calls in that same thread, so this
# must hold for the whole session, not just the browser tests (a per-test setting broke the
# teardown of every database test that ran after them).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _need(condition: bool, why: str) -> None:
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


def real_engine_available() -> bool:
    return importlib.util.find_spec("judge_site.submissions.engine") is not None


def browser_backend() -> str:
    """The sandbox of the suite's worker: JUDGE_BROWSER_BACKEND, else docker in CI, else local."""
    return os.environ.get("JUDGE_BROWSER_BACKEND") or ("docker" if IN_CI else "local")


@pytest.fixture(scope="session")
def built_assets() -> None:
    vendor = ROOT / "judge_site" / "static" / "vendor" / "katex" / "katex.min.js"
    if not vendor.is_file():
        proc = subprocess.run(
            [str(ROOT / "scripts" / "build_assets")], capture_output=True, text=True
        )
        assert proc.returncode == 0, f"scripts/build_assets failed:\n{proc.stdout}\n{proc.stderr}"
    assert vendor.is_file()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _need(Path(CHROMIUM).is_file(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Any, live_server: Any, built_assets: None) -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(
        viewport={"width": 1400, "height": 1000}, base_url=live_server.url
    )
    context.set_default_timeout(20_000)
    # Every page must work under the site's Content-Security-Policy: a violation (an inline
    # script or style, a handler attribute, a foreign host) fails the test that caused it.
    context.add_init_script(CSP_LISTENER)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on(
        "console",
        lambda msg: (
            errors.append(f"console: {msg.text}")
            if "Content Security Policy" in msg.text or "CSP_VIOLATION" in msg.text
            else None
        ),
    )
    yield tab
    context.close()
    assert not errors, f"JavaScript errors or CSP violations on the page: {errors}"


@pytest.fixture
def problem48(transactional_db: Any) -> Any:
    from judge_site.catalog.services import problem_sync
    from sandbox.problem import load_package

    problem_sync(load_package(PROBLEM_48))
    from judge_site.catalog.models import Problem

    return Problem.objects.get(number=48)


class JudgeWorker:
    """A Celery worker subprocess (tests/browser/judge_worker.py) on the queue ``queue``,
    sharing the current test database; ``env`` adds to or overrides its environment."""

    def __init__(self, queue: str, env: dict[str, str] | None = None, name: str = "worker") -> None:
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
            JUDGE_BACKEND=browser_backend(),
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


@pytest.fixture
def judge_worker(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A Celery worker subprocess on a private queue, sharing the live server's test database."""
    worker = JudgeWorker(private_queue(monkeypatch, "browser"))
    worker.start()
    try:
        yield {
            "queue": worker.queue,
            "engine": "real" if worker.env["JUDGE_BROWSER_FAKE_ENGINE"] == "0" else "fake",
            "backend": worker.env["JUDGE_BACKEND"],
        }
    finally:
        worker.stop()

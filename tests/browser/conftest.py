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
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def problem48(transactional_db: Any) -> Any:
    from judge_site.catalog.services import problem_sync
    from sandbox.problem import load_package

    problem_sync(load_package(PROBLEM_48))
    from judge_site.catalog.models import Problem

    return Problem.objects.get(number=48)


@pytest.fixture
def judge_worker(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A Celery worker subprocess on a private queue, sharing the live server's test database."""
    from django.db import connection

    from judge_site.submissions import services

    db = connection.settings_dict
    assert "postgresql" in db["ENGINE"], "the browser suite needs Postgres (DATABASE_URL)"
    queue = f"browser-{os.getpid()}-{int(time.time())}"
    monkeypatch.setattr(services, "queue_for", lambda problem: queue)
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="judge_site.settings",
        DEBUG="true",
        DATABASE_URL=(
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        ),
        JUDGE_BACKEND=browser_backend(),
        JUDGE_BROWSER_FAKE_ENGINE="0" if real_engine_available() else "1",
        PYTHONUNBUFFERED="1",
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / "worker.log"
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("judge_worker.py")), queue],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 90
    while "ready." not in log_path.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the Celery worker did not start:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.3)
    try:
        yield {
            "queue": queue,
            "engine": "real" if env["JUDGE_BROWSER_FAKE_ENGINE"] == "0" else "fake",
            "backend": env["JUDGE_BACKEND"],
        }
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()

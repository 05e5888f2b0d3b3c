"""The browser suite: real headless Chromium (Debian's package) through Playwright, against
pytest-django's live server, with a real Celery worker process judging on a queue of its own.

Needs Redis and Postgres (as the rest of the suite), /usr/bin/chromium, and the front-end
assets (scripts/build_assets; run here once when missing). Without Chromium the suite skips,
except with CI=true, where it fails.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    CSP_LISTENER,
    PROBLEM_48,
    ROOT,
    JudgeWorker,
)

from tests.conftest import skip_or_fail

# Playwright's sync API keeps an event loop running in this thread for as long as the
# session-scoped browser lives (to the end of the session), and every later test's ORM calls
# (and pytest-django's own teardown) are plain synchronous calls in that same thread, so this
# must hold for the whole session, not just the browser tests (a per-test setting broke the
# teardown of every database test that ran after them).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _need(condition: bool, why: str) -> None:
    if not condition:
        skip_or_fail(why)


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
    from sandbox.grader.package import load_package

    problem_sync(load_package(PROBLEM_48))
    from judge_site.catalog.models import Problem

    return Problem.objects.get(number=48)


@pytest.fixture(scope="session")
def _judge_workers() -> Iterator[dict[bool, JudgeWorker]]:
    """The journeys' Celery workers, one per kind of sandbox (Docker or not), each started by
    the first test that asks for it (judge_worker) and stopped at the end of the session: a
    start is Django, Celery and the engine's imports (3 CPU-s, about 6 s on a busy machine),
    paid once instead of once per journey. Each test waits for its own verdicts."""
    workers: dict[bool, JudgeWorker] = {}
    yield workers
    for worker in workers.values():
        worker.stop()


@pytest.fixture
def judge_worker(
    live_server: Any, transactional_db: Any, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest, _judge_workers: dict[bool, JudgeWorker],
) -> dict[str, str]:
    """A Celery worker subprocess on a private queue, sharing the live server's test database;
    judging in Docker sandboxes in CI for a test marked ``sandbox_docker``. The test's
    submissions go to its queue."""
    from judge_site.submissions import services

    docker = request.node.get_closest_marker("sandbox_docker") is not None
    worker = _judge_workers.get(docker)
    if worker is None or worker.proc is None or worker.proc.poll() is not None:
        kind = "docker" if docker else "local"
        worker = JudgeWorker(f"browser-{kind}-{os.getpid()}-{int(time.time())}", docker=docker,
                             name=f"worker-{kind}")
        worker.start()
        _judge_workers[docker] = worker
    monkeypatch.setattr(services, "queue_for", lambda problem: worker.queue)
    return {
        "queue": worker.queue,
        "engine": "real" if worker.env["JUDGE_BROWSER_FAKE_ENGINE"] == "0" else "fake",
        "backend": worker.env["JUDGE_BACKEND"],
    }

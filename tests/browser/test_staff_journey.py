"""An admin in a real browser: uploads a package zip, watches its check, uses and publishes it;
a student solves it; the admin uploads a fixed version (a hidden case the student's solution
fails), rejudges the problem, and the changed verdict appears in the table.

A real Celery worker (tests/browser/judge_worker.py) on a private queue takes the package checks,
the student's judging and the rejudge; the package is the tiny one of tests/tiny_package.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_kit import ARTIFACTS, JudgeWorker, private_queue
from tiny_package import NUMBER, SMALL_ONLY, package_zip  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CHECK_TIMEOUT_MS = 240_000


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"staff-{name}.png"), full_page=True)


def log_in(page: Any, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", f"{username}-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")


def upload_and_use(page: Any, zip_path: Path, label: str) -> None:
    page.goto("/staff/upload/")
    page.set_input_files("input[name=package]", str(zip_path))
    page.click("main button[type=submit]")
    page.wait_for_selector("#check-items")
    shot(page, f"{label}-checking")
    page.wait_for_selector("#check-status.status-passed", timeout=CHECK_TIMEOUT_MS)
    rows = page.inner_text("#check-items")
    assert "solutions/WA/plus_one.py gets WA" in rows and "reference (solution.py) is AC" in rows
    shot(page, f"{label}-checked")
    page.click("#use-version")
    page.wait_for_selector("#published-state")


@pytest.fixture
def staff_worker(live_server: Any, monkeypatch: pytest.MonkeyPatch, settings: Any,
                 tmp_path: Path) -> Any:
    """One worker for everything: checks, the student's judging and the rejudge."""
    queue = private_queue(monkeypatch, "staff")
    settings.JUDGE_CHECK_QUEUE = settings.JUDGE_REJUDGE_QUEUE = queue
    settings.JUDGE_PACKAGES_DIR = tmp_path / "packages"
    worker = JudgeWorker(queue, name="staff-worker")
    worker.start()
    yield worker
    worker.stop()


def test_an_admin_uploads_publishes_and_rejudges(page: Any, browser: Any, live_server: Any,
                                                 staff_worker: Any, tmp_path: Path) -> None:
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    users.create_user("ada", password="ada-pass-123", is_staff=True, is_superuser=True)
    users.create_user("sam", password="sam-pass-123")
    zips = {}
    for version in (1, 2):
        zips[version] = tmp_path / f"tiny-v{version}.zip"
        zips[version].write_bytes(package_zip(tmp_path, version))

    # The admin uploads v1, watches its check pass, uses it and publishes the new problem.
    log_in(page, "ada")
    upload_and_use(page, zips[1], "v1")
    assert page.inner_text("#published-state") == "Not published"
    page.click("#publish")
    page.wait_for_selector("#unpublish")
    assert page.inner_text("#published-state") == "Published"

    # A student solves it (for v1's tests, which stop at 8 elements).
    student = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  base_url=live_server.url)
    student.set_default_timeout(20_000)
    tab = student.new_page()
    try:
        log_in(tab, "sam")
        tab.goto(f"/problems/{NUMBER}/")
        tab.wait_for_selector(".CodeMirror")
        tab.evaluate("(code) => document.querySelector('.CodeMirror').CodeMirror.setValue(code)",
                     SMALL_ONLY)
        tab.click("#submit-btn")
        done = tab.wait_for_selector("#results .status-line[data-status=done]",
                                     timeout=CHECK_TIMEOUT_MS)
        assert done.get_attribute("data-verdict") == "AC"
    finally:
        student.close()

    # The admin uploads v2 (a hidden case of 1000 elements), uses it and rejudges everything.
    upload_and_use(page, zips[2], "v2")
    assert "v2" in page.inner_text("main")
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#rejudge-all")
    page.wait_for_selector("#rejudge-finished", timeout=CHECK_TIMEOUT_MS)
    row = page.locator("#changed tr.changed-row")
    assert row.count() == 1
    assert row.locator(".before").inner_text() == "AC"
    assert row.locator(".after").inner_text() == "WA"
    shot(page, "rejudged")

    # The dashboard sees the worker's heartbeat; the submission's staff page shows v2.
    page.goto("/staff/")
    assert "no worker has sent a heartbeat" not in page.inner_text("main")
    from judge_site.submissions.models import Submission

    sub = Submission.objects.get(problem__number=NUMBER)
    page.goto(f"/staff/submissions/{sub.pk}/")
    assert page.inner_text("#verdict") == "WA"
    assert "v2" in page.inner_text("main")

"""A student in a real browser fails a check twice with two different wrong programs, waits the
cool-down and sees the check's first hint on the result page; then Submits a correct program and
reads the roofline picture and the % of speed of light on its result page (issue 23)."""

from __future__ import annotations

import time

import pytest
from browser_kit import ARTIFACTS, PROBLEM_48

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CORRECT = (PROBLEM_48 / "solutions" / "AC" / "gather.py").read_text()
# The package's classic mistake (padding rows not zeroed): it fails tests of embed, whose ladder's
# first hint is about pad_id. The marker comment lets the fake engine give it a WA too.
WRONG = "# WRONG: padding rows are not zeroed\n" + (
    PROBLEM_48 / "solutions" / "WA" / "pad_row_not_zeroed.py"
).read_text()
COOLDOWN_S = 8.0  # the admin's override of the package's 120 s, so that the test waits for real
JUDGING_TIMEOUT_MS = 180_000


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", f"{username}-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")


def submit(page, number: int, code: str) -> str:
    """Submit ``code`` from the problem page, wait for the verdict, open the result page."""
    page.goto(f"/problems/{number}/")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c)", code)
    page.click("#submit-btn")
    done = page.wait_for_selector("#results .status-line[data-status=done]", timeout=JUDGING_TIMEOUT_MS)
    verdict = done.get_attribute("data-verdict") or ""
    with page.expect_navigation():
        page.click("#results a[href^='/submissions/']")
    page.wait_for_selector(".status-line[data-status=done]")
    return verdict


def test_a_student_fails_a_check_twice_waits_and_sees_the_hint_then_the_roofline(
    page, problem48, judge_worker
):
    from judge_site.hints.models import HintSettings, HintShown
    from judge_site.submissions.models import Submission

    HintSettings.objects.create(problem=problem48, cooldown_s=COOLDOWN_S)
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username="hana", password="hana-pass-123")
    log_in(page, "hana")

    assert submit(page, 48, WRONG) == "WA"
    assert page.locator("#hints").count() == 0  # one failure: no hint
    assert submit(page, 48, WRONG) == "WA"  # the same code again does not count
    assert page.locator("#hints").count() == 0
    # A real change (a comment alone would not count: sandbox/grader/hints.py, code_hash).
    assert submit(page, 48, "second_try = True\n" + WRONG) == "WA"
    first = Submission.objects.filter(user__username="hana").order_by("created_at").first()
    assert first is not None
    waited = time.time() - first.created_at.timestamp()
    if waited < COOLDOWN_S:  # judged faster than the cool-down: the hint is held back
        assert page.locator("#hints").count() == 0
        assert not HintShown.objects.exists()
        page.wait_for_timeout(int((COOLDOWN_S - waited) * 1000) + 500)
    page.reload()
    hint = page.wait_for_selector("#hints .hint")
    assert "pad_id" in hint.inner_text() and "hint 1 of 3" in hint.inner_text()
    page.screenshot(path=str(ARTIFACTS / "hint-result-page.png"), full_page=True)
    shown = HintShown.objects.get()
    assert (shown.check_key, shown.rung) == ("fn:embed", 0)
    # The problem page shows it too.
    page.goto("/problems/48/")
    assert "pad_id" in page.inner_text("#hints")

    # A correct Submit: the result page draws the roofline and gives % of speed of light.
    assert submit(page, 48, CORRECT) == "AC"
    if judge_worker["engine"] == "real":
        assert page.locator("svg.roofline circle.point.yours").count() >= 1
        sol = page.locator("table .sol").all_inner_texts()
        assert sol and any(text.strip().split(" ")[0].replace(".", "").isdigit() and "%" in text
                           for text in sol), sol
        assert "% of speed of light" in page.inner_text("main")
    page.screenshot(path=str(ARTIFACTS / "hint-then-roofline.png"), full_page=True)

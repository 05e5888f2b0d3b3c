"""A student in a real browser Runs a wrong program on problem 48 (the real engine, the local
backend) and reads, on the result page, the failing public test's expected tensor beside their
own with the differing values marked, and the judging's phases as a timeline; then Runs a fixed
program and opens the diff with the previous submission (issue 42, part 4)."""

from __future__ import annotations

import pytest
from browser_kit import ARTIFACTS, PROBLEM_48

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WRONG = (PROBLEM_48 / "solutions" / "WA" / "pad_row_not_zeroed.py").read_text()
FIXED = (PROBLEM_48 / "solutions" / "AC" / "gather.py").read_text()
JUDGING_TIMEOUT_MS = 120_000


def run(page, code: str) -> str:
    """Run ``code`` from problem 48's page, wait for the verdict, open the result page."""
    page.goto("/problems/48/")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c)", code)
    page.click("#run-btn")
    done = page.wait_for_selector(
        "#results .status-line[data-status=done]", timeout=JUDGING_TIMEOUT_MS
    )
    verdict = done.get_attribute("data-verdict") or ""
    with page.expect_navigation():
        page.click("#results a[href^='/submissions/']")
    page.wait_for_selector(".status-line[data-status=done]")
    return verdict


def test_a_failing_public_test_shows_expected_beside_actual(page, problem48, judge_worker):
    if judge_worker["engine"] != "real":
        pytest.skip("the picture comes from the real grader (the fake engine draws none)")
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username="ines", password="ines-pass-123")
    page.goto("/accounts/login/")
    page.fill("#id_username", "ines")
    page.fill("#id_password", "ines-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")

    assert run(page, WRONG) == "WA"
    picture = page.locator(".compare-row .compare").first
    picture.wait_for()
    sides = picture.locator("figure.compare-side")
    assert sides.locator("figcaption").all_inner_texts() == ["Expected", "Yours"]
    expected_marks = sides.nth(0).locator("td.bad mark").all_inner_texts()
    got_marks = sides.nth(1).locator("td.bad mark").all_inner_texts()
    assert expected_marks and len(expected_marks) == len(got_marks)
    assert expected_marks != got_marks  # the marked values are the ones that differ
    assert sides.nth(0).bounding_box()["y"] == sides.nth(1).bounding_box()["y"]  # side by side
    assert "elements differ" in picture.locator(".compare-summary").inner_text()
    # The phases: an SVG bar and its legend, not a Python dict.
    assert page.locator("svg.timeline rect").count() >= 3
    assert "the tests:" in page.locator(".timeline-legend").inner_text()
    assert "{'" not in page.locator("main").inner_text()
    page.screenshot(path=str(ARTIFACTS / "compare-result-page.png"), full_page=True)

    assert run(page, FIXED) == "AC"
    assert page.locator(".compare-row").count() == 0
    with page.expect_navigation():
        page.click("#diff-previous")
    table = page.wait_for_selector("#code-diff")
    assert "Diff of #" in page.inner_text("h1")
    assert page.locator("#code-diff tr.cd-insert, #code-diff tr.cd-replace").count() >= 1
    assert "def " in table.inner_text()
    page.screenshot(path=str(ARTIFACTS / "diff-page.png"), full_page=True)

"""A new student, in a real browser: sign up, read problem 48, edit, Run, Submit (AC with a
speedup, then a WA with the worst element), the solution notes the AC opened, leaderboards and
history, an expired session."""

from __future__ import annotations

import json

import pytest
from browser_kit import ARTIFACTS, PROBLEM_48, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CORRECT = (PROBLEM_48 / "solutions" / "AC" / "gather.py").read_text()
# The package's own classic mistake (padding rows not zeroed); the marker comment lets the
# fake engine (used only until the real one is importable) give it a WA too.
WRONG = (
    "# WRONG: padding rows are not zeroed\n"
    + (PROBLEM_48 / "solutions" / "WA" / "pad_row_not_zeroed.py").read_text()
)
JUDGING_TIMEOUT_MS = 180_000


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def set_code(page, code: str) -> None:
    """Paste-like: replace the editor's content (typing a whole file would fight auto-indent)."""
    page.evaluate("(code) => document.querySelector('.CodeMirror').CodeMirror.setValue(code)", code)


def record_progress(page) -> None:
    """Record every (status, number of test rows) the results panel shows from now on."""
    page.evaluate(
        """() => {
        window.__progress = [];
        const panel = document.getElementById("results");
        new MutationObserver(() => {
            const line = panel.querySelector(".status-line");
            if (line) window.__progress.push(
                [line.dataset.status, panel.querySelectorAll("tr.test-row").length]);
        }).observe(panel, {childList: true, subtree: true});
    }"""
    )


def editor_code(page) -> str:
    return page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getValue()")


def wait_verdict(page) -> str:
    done = page.wait_for_selector(
        "#results .status-line[data-status=done]", timeout=JUDGING_TIMEOUT_MS
    )
    return done.get_attribute("data-verdict") or ""


@pytest.mark.sandbox_docker  # the flagship journey judges in Docker in CI
def test_a_new_student_goes_from_sign_up_to_accepted(page, problem48, judge_worker):
    # Sign up (the platform's form), land on the problem list.
    page.goto("/accounts/signup/")
    page.fill("#id_username", "dora")
    page.fill("#id_password1", "a-long-pass-phrase-42")
    page.fill("#id_password2", "a-long-pass-phrase-42")
    page.click("button[type=submit]")
    page.wait_for_selector("table.problems")
    assert "dora" in page.inner_text(".nav-user")
    shot(page, "01-problem-list")

    # The problem page: math typeset by KaTeX, the editor with the starter code.
    page.click("text=Embedding, tied LM head and padding")
    page.wait_for_selector(".CodeMirror")
    assert page.locator("#statement .katex").count() > 5
    assert page.locator("#statement .katex-display").count() >= 1
    assert "def embed" in editor_code(page)
    # The package's solution notes (notes.md) stay locked until an accepted Submit.
    assert page.locator("#solution-notes-locked").count() == 1
    assert page.locator("#solution-notes").count() == 0

    # Type into the editor; the draft is saved on the server and survives a reload.
    page.click(".CodeMirror-line >> nth=0")
    page.keyboard.press("Control+Home")
    page.keyboard.type("# my first try\n")
    assert editor_code(page).startswith("# my first try\n")
    page.wait_for_selector("#draft-status:has-text('Draft saved')")
    from judge_site.catalog.models import Draft

    assert Draft.objects.get(user__username="dora").code.startswith("# my first try\n")
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert editor_code(page).startswith("# my first try\n")
    # Leaving the page right after typing still keeps the draft (a beacon on the way out).
    page.click(".CodeMirror-line >> nth=0")
    page.keyboard.press("Control+Home")
    page.keyboard.type("# again\n")
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert editor_code(page).startswith("# again\n# my first try\n")

    # Reset to starter (after a confirmation) drops the draft.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#reset-btn")
    assert editor_code(page) == problem48.starter_code
    page.wait_for_selector("#draft-status:has-text('Draft discarded')")
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert editor_code(page) == problem48.starter_code

    # Bad input is refused with a clear message, and nothing is judged.
    set_code(page, "   \n")
    page.click("#run-btn")
    assert "code is empty" in page.wait_for_selector("#results .alert").inner_text()
    set_code(page, "#" * 70_000)
    page.click("#run-btn")
    assert "the limit is" in page.wait_for_selector("#results .alert").inner_text()
    shot(page, "02a-bad-input")
    set_code(page, problem48.starter_code)

    # Run (Ctrl+Enter): public tests only, each shown with its verdict.
    page.click(".CodeMirror-line >> nth=0")
    page.keyboard.press("Control+Enter")
    wait_verdict(page)
    rows = page.locator("#results tr.test-row")
    assert rows.count() >= 2
    assert "(hidden)" not in page.inner_text("#results")
    shot(page, "02-run-public-tests")

    # Submit a correct solution: AC with a speedup against the baseline.
    set_code(page, CORRECT)
    record_progress(page)
    page.click("#submit-btn")
    assert wait_verdict(page) == "AC", page.inner_text("#results")
    seen = page.evaluate("() => window.__progress")
    # Live progress: the panel showed the judging before the verdict, tests included.
    assert any(status in ("queued", "running") for status, _ in seen), seen
    assert any(status == "running" and tests > 0 for status, tests in seen), seen
    assert "(hidden)" in page.inner_text("#results")
    speedup = page.inner_text("#results .speedup")
    assert speedup.startswith("Speedup ") and speedup.endswith("×")
    shot(page, "03-submit-accepted")
    if judge_worker["engine"] == "real":
        from judge_site.submissions.models import Submission

        accepted = Submission.objects.get(verdict="AC")
        assert accepted.environment.get("backend") == judge_worker["backend"]
        assert accepted.benchmark["speedup"] > 0
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(ROOT / "test-artifacts" / "screenshot.png"))  # the README's

    # The submission page: benchmark bars and the code.
    with page.expect_navigation():
        page.click("#results a[href^='/submissions/']")
    assert page.locator("svg.bars rect").count() == 2
    assert "def embed" in page.inner_text("#submitted-code")
    shot(page, "04-submission-page")

    # Submit a wrong one: WA, the worst element named.
    page.go_back()
    page.wait_for_selector(".CodeMirror")
    set_code(page, WRONG)
    page.click("#submit-btn")
    page.wait_for_selector("#results .status-line")
    page.reload()  # a refresh resumes the live progress of the unfinished judging
    assert wait_verdict(page) == "WA", page.inner_text("#results")
    worst = page.inner_text("#results .worst")
    assert worst.startswith("worst element at index")
    shot(page, "05-submit-wrong-answer")

    # Leaderboard of problem 48 and the overall one, then the history.
    page.goto(f"/problems/{problem48.number}/leaderboard/")
    assert "dora" in page.inner_text("table.board")
    shot(page, "06-leaderboard")
    page.goto("/leaderboard/")
    assert "dora" in page.inner_text("table.board")
    page.goto("/submissions/")
    assert page.locator("table.history tbody tr").count() == 3
    page.goto("/submissions/?verdict=AC")
    assert page.locator("table.history tbody tr").count() == 1
    shot(page, "07-history")
    page.goto("/")
    assert page.locator("tr[data-number='48'] .mark-solved").count() == 1
    # The AC (a later WA takes nothing back) has opened the solution notes on the problem page.
    page.goto(f"/problems/{problem48.number}/")
    assert "pad_id" in page.wait_for_selector("#solution-notes").inner_text()
    assert page.locator("#solution-notes-locked").count() == 0

    # An expired session: the page says so instead of failing silently.
    page.goto(f"/problems/{problem48.number}/")
    page.wait_for_selector(".CodeMirror")
    page.context.clear_cookies()
    page.click("#run-btn")
    alert = page.wait_for_selector("#results .alert")
    assert "session has expired" in alert.inner_text()

    (ARTIFACTS / "engine.json").write_text(json.dumps(judge_worker))

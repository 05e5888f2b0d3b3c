"""A student solves an imported practice problem in a real browser: the statement's math typeset,
the starter in the editor, a Run (public test only) that fails, a Submit that passes every test
(hidden ones judged through the proxies), then the solution notes on the page. The folder is our
own toy exercise (tests/fixtures/practice/toy-running-stats), imported with import_practice's
service and judged by a real Celery worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_kit import ARTIFACTS, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TOY = ROOT / "tests" / "fixtures" / "practice" / "toy-running-stats"
JUDGING_TIMEOUT_MS = 180_000


@pytest.fixture
def practice_problem(transactional_db: Any, tmp_path: Path) -> Any:
    from judge_site.catalog.models import Problem
    from judge_site.catalog.services import practice_import
    from sandbox.host.backends.local import LocalBackend

    report = practice_import(TOY, number=300, dest_dir=tmp_path / "packages", backend=LocalBackend())
    assert report["imported"], report
    return Problem.objects.get(number=300)


def set_code(page: Any, code: str) -> None:
    page.evaluate("(code) => document.querySelector('.CodeMirror').CodeMirror.setValue(code)", code)


def wait_verdict(page: Any) -> str:
    done = page.wait_for_selector(
        "#results .status-line[data-status=done]", timeout=JUDGING_TIMEOUT_MS
    )
    return done.get_attribute("data-verdict") or ""


def test_a_student_solves_an_imported_practice_problem(page, practice_problem, judge_worker):
    page.goto("/accounts/signup/")
    page.fill("#id_username", "erin")
    page.fill("#id_password1", "a-long-pass-phrase-43")
    page.fill("#id_password2", "a-long-pass-phrase-43")
    page.click("button[type=submit]")
    page.wait_for_selector("table.problems")

    page.goto("/problems/300/")
    page.wait_for_selector(".CodeMirror")
    assert page.locator("#statement .katex").count() >= 1  # $\hat x = ...$ typeset
    assert "test_example_normalize" in page.inner_text("#statement")
    assert page.locator("#solution-notes-locked").count() == 1
    code = page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getValue()")
    assert "TODO: divide by the standard deviation" in code

    # Run the starter: the public test fails with the checker's message.
    page.click("#run-btn")
    assert wait_verdict(page) == "WA", page.inner_text("#results")
    assert "outside the tolerance" in page.inner_text("#results")
    assert "test_large_offset" not in page.inner_text("#results")  # Run: public tests only

    # Submit the folder's solution: every test, hidden ones included, is accepted.
    set_code(page, (TOY / "solution.py").read_text())
    page.click("#submit-btn")
    assert wait_verdict(page) == "AC", page.inner_text("#results")
    assert "(hidden)" in page.inner_text("#results")
    page.screenshot(path=str(ARTIFACTS / "practice-accepted.png"), full_page=True)

    # The solution notes open after the AC.
    page.reload()
    page.wait_for_selector("#solution-notes")
    assert "Subtract the mean first" in page.inner_text("#solution-notes")

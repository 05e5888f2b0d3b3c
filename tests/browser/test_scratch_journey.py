"""A student in a real browser writes problem 48's function, runs the scratchpad's first snippet
(it calls their function on a made-up input and prints the result) through the real engine and
the local backend, and reads their tensor's repr under the editor; then picks another snippet
(issue 42, part 3)."""

from __future__ import annotations

import pytest
from browser_kit import ARTIFACTS, PROBLEM_48

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MINE = (PROBLEM_48 / "solutions" / "AC" / "gather.py").read_text()
JUDGING_TIMEOUT_MS = 120_000


def test_the_scratchpad_prints_the_students_tensor(page, problem48, judge_worker):
    if judge_worker["engine"] != "real":
        pytest.skip("a scratch run's output comes from the real grader (the fake engine has none)")
    from django.contrib.auth import get_user_model

    from judge_site.submissions.models import BestResult, Submission

    get_user_model().objects.create_user(username="sol", password="sol-pass-123")
    page.goto("/accounts/login/")
    page.fill("#id_username", "sol")
    page.fill("#id_password", "sol-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")

    page.goto("/problems/48/")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c)", MINE)
    script = page.input_value("#scratch-script")
    assert "out = embed(ids, weight, pad_id)" in script and "pad_id = 0" in script
    page.click("#scratch-run")
    page.wait_for_function(
        "() => /ran to its end/.test(document.getElementById('scratch-status').textContent)",
        timeout=JUDGING_TIMEOUT_MS,
    )
    printed = page.inner_text("#scratch-output")
    # Four ids, the third the padding id: a (4, 8) tensor whose third row is zeros.
    assert printed.startswith("tensor([[")
    rows = [line for line in printed.splitlines() if line.strip().startswith(("[", "tensor"))]
    assert len(rows) == 4 and rows[2].count("0.0000") == 8, printed
    page.screenshot(path=str(ARTIFACTS / "scratchpad.png"), full_page=True)

    # Another snippet replaces the lines only when asked.
    page.select_option("#scratch-snippet", "compare")
    assert "torch.nn.functional.embedding" not in page.input_value("#scratch-script")
    page.click("#scratch-use")
    assert "torch.nn.functional.embedding(ids, weight)" in page.input_value("#scratch-script")

    # The run counted nowhere and is not the judging the page resumes.
    (run,) = Submission.objects.filter(user__username="sol")
    assert (run.mode, run.verdict) == ("scratch", "")
    assert not BestResult.objects.filter(user__username="sol").exists()
    page.goto("/problems/48/")
    assert page.inner_text("#results").strip() == ""

"""An instructor in a real browser reads a similarity pair (issue 40): from the course's manage
page to the assignment's similarity page, starts a run, watches its progress until the page
turns into the ranked pairs by itself, and opens the copied pair side by side with the shared
fragments marked.

No worker process: the run's task is sent nowhere, and the test runs its body
(services.run_execute) itself once the page polls, as a worker of the rejudge queue would. The
task's queueing is tested in tests/courses/test_similarity_pages.py.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from browser_kit import ARTIFACTS, PROBLEM_48

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORIGINAL = (PROBLEM_48 / "solutions" / "AC" / "gather.py").read_text()
INDEPENDENT = (PROBLEM_48 / "solutions" / "AC" / "python_loops.py").read_text()
RENAMES = {"ids": "tokens", "weight": "table", "pad_id": "padding", "pad": "is_pad",
           "out": "result", "seqs": "batch", "mask": "valid", "last": "final", "t_max": "width"}


def _disguised(code: str) -> str:
    """``code`` copied: names renamed, comments gone, every line's layout changed."""
    for old, new in RENAMES.items():
        code = re.sub(rf"\b{old}\b", new, code)
    code = re.sub(r"#.*", "", code).replace(", ", ",").replace(" = ", "=")
    return "# my own work\n" + code


def test_an_instructor_reads_a_similarity_pair(page: Any, problem48: Any, monkeypatch: Any) -> None:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from judge_site.courses.models import Assignment, AssignmentProblem, Course, Membership
    from judge_site.similarity import services
    from judge_site.submissions.models import Submission

    monkeypatch.setattr(services, "enqueue", lambda *args, **kwargs: None)
    users = get_user_model().objects
    ines = users.create_user(username="ines", password="ines-pass-123")
    course = Course.objects.create(title="LLM internals", created_by=ines)
    Membership.objects.create(course=course, user=ines, role="instructor")
    now = timezone.now()
    assignment = Assignment.objects.create(course=course, title="Week 1",
                                           opens_at=now - timedelta(days=2), due_at=now + timedelta(days=5))
    AssignmentProblem.objects.create(assignment=assignment, problem=problem48)
    for name, code in [("ann", ORIGINAL), ("ben", INDEPENDENT), ("cid", _disguised(ORIGINAL))]:
        student = users.create(username=name)
        Membership.objects.create(course=course, user=student, role="student")
        Membership.objects.filter(user=student).update(joined_at=now - timedelta(days=1))
        Submission.objects.create(user=student, problem=problem48, code=code, mode="submit",
                                  status="done", verdict="AC")

    page.goto("/accounts/login/")
    page.fill("#id_username", "ines")
    page.fill("#id_password", "ines-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")
    page.goto(f"/courses/{course.pk}/manage")
    page.click(f"tr[data-assignment='{assignment.pk}'] a.similarity-link")
    page.fill("#similarity-threshold", "0.6")
    page.click("#similarity-run-btn")
    page.wait_for_selector("#similarity-progress")
    assert page.is_disabled("#similarity-run-btn")

    services.run_execute(assignment.similarity_runs.get().pk)  # what the worker does
    row = page.wait_for_selector("tr.similarity-pair", timeout=20_000)  # the page reloads itself
    assert (row.get_attribute("data-a"), row.get_attribute("data-b")) == ("ann", "cid")
    assert page.locator("tr.similarity-pair").count() == 1  # ben wrote his own
    page.screenshot(path=str(ARTIFACTS / "similarity-pairs.png"), full_page=True)

    row.query_selector("a").click()
    page.wait_for_selector("#pair-left mark")
    assert "ann" in page.inner_text("#pair-left h2") and "cid" in page.inner_text("#pair-right h2")
    marked = " ".join(page.locator("#pair-right mark").all_inner_texts())
    assert "torch.where" in marked and "padding" in marked  # cid's names, marked all the same
    page.screenshot(path=str(ARTIFACTS / "similarity-pair.png"), full_page=True)

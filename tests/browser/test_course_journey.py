"""A term in a real browser: an instructor (not site staff: she holds "Can create courses")
creates a course and two assignments, one due next week and one already due with its late
window open at half credit; a student joins with the join code, solves one problem of each from
the problem pages, and the instructor's progress matrix and grade CSV show 1 and 0.5.

The instructor's browser runs in New York's time zone and the student's in Tokyo's: the forms
take local times and the pages show them back in the viewer's zone.

The Submits go through the real path (the problem page's Submit, a Celery worker on a private
queue, the result written by the judging service), but the worker runs the fake engine of
tests/judge_cast.py: a real judging of problems 48 and 57 takes 10-20 s each on a busy
machine (benchmarks included), and the credit rules read only the verdict and the creation
time. The real engine's path is the student journey's (test_student_journey.py).
"""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from browser_kit import ARTIFACTS, CSP_LISTENER, ROOT, JudgeWorker, private_queue

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NEW_YORK, TOKYO = "America/New_York", "Asia/Tokyo"
PROBLEM_57 = ROOT / "problems" / "057-causal-attention-padding"


@pytest.fixture
def fake_worker(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    worker = JudgeWorker(
        private_queue(monkeypatch, "course"), env={"JUDGE_BROWSER_FAKE_ENGINE": "1"},
        name="course-worker",
    )
    worker.start()
    yield worker
    worker.stop()


def tab_in(browser: Any, live_server: Any, zone: str, errors: list[str]) -> Any:
    """A page of its own (own cookies) whose clock is in ``zone``; CSP violations and page
    errors are collected into ``errors``."""
    context = browser.new_context(
        viewport={"width": 1400, "height": 1000}, base_url=live_server.url, timezone_id=zone,
        locale="en-GB", accept_downloads=True,
    )
    context.set_default_timeout(20_000)
    context.add_init_script(CSP_LISTENER)
    tab = context.new_page()
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if "CSP_VIOLATION" in msg.text else None)
    return tab


def log_in(page: Any, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", f"{username}-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")


def local(when: Any, zone: str) -> str:
    """What a person in ``zone`` types into a datetime-local field for ``when``."""
    return when.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%dT%H:%M")


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"course-{name}.png"), full_page=True)


def submit_from_problem_page(page: Any, number: int, code: str) -> None:
    page.click(f"tr[data-problem='{number}'] a[href='/problems/{number}/']")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c)", code)
    page.click("#submit-btn")
    done = page.wait_for_selector("#results .status-line[data-status=done]", timeout=60_000)
    assert done.get_attribute("data-verdict") == "AC"
    page.go_back()
    page.wait_for_selector("section.assignment")


def test_a_course_from_creation_to_the_grade_csv(
    browser: Any, live_server: Any, built_assets: None, problem48: Any, fake_worker: Any
) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.utils import timezone

    from judge_site.catalog.services import problem_sync
    from judge_site.courses.models import Assignment, Course
    from sandbox.grader.package import load_package

    problem_sync(load_package(PROBLEM_57))
    users = get_user_model().objects
    ines = users.create_user("ines", password="ines-pass-123")
    ines.user_permissions.add(Permission.objects.get(codename="create_course"))
    users.create_user("sam", password="sam-pass-123", email="sam@example.org")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    now = timezone.now()

    # The instructor creates the course and its two assignments, typing New York times.
    teacher = tab_in(browser, live_server, NEW_YORK, errors)
    log_in(teacher, "ines")
    teacher.click("nav >> text=Courses")
    teacher.fill("#course-title", "LLM internals")
    teacher.click("#create-course-btn")
    code = teacher.inner_text("#join-code-value").strip()
    assert teacher.inner_text("#assignment-form .tz-name") == NEW_YORK
    for title, number, opens, due, late_until, credit in (
        ("Week 1", "48", now - timedelta(days=1), now + timedelta(days=6), None, "0"),
        ("Week 0", "57", now - timedelta(days=3), now - timedelta(hours=2),
         now + timedelta(days=2), "0.5"),
    ):
        teacher.fill("#assignment-title", title)
        teacher.select_option("#assignment-problems", [number])
        teacher.fill("#opens-at", local(opens, NEW_YORK))
        teacher.fill("#due-at", local(due, NEW_YORK))
        teacher.fill("#late-until", local(late_until, NEW_YORK) if late_until else "")
        teacher.fill("#late-credit", credit)
        with teacher.expect_navigation():
            teacher.click("#create-assignment-btn")
        assert "Assignment created" in teacher.inner_text(".message.success")
    week0 = Assignment.objects.get(title="Week 0")
    assert abs(week0.due_at - (now - timedelta(hours=2))) < timedelta(minutes=1)
    assert week0.late_credit == 0.5 and teacher.locator("tr.assignment-row").count() == 2
    shot(teacher, "01-manage")

    # The student joins with the code and sees the deadlines in Tokyo time.
    student = tab_in(browser, live_server, TOKYO, errors)
    log_in(student, "sam")
    student.goto("/courses/")
    student.fill("#join-code", code.lower())
    student.check("#join-share-email")  # the grades CSV shows the address only with consent
    student.click("#join-btn")
    student.wait_for_selector("section.assignment")
    assert "Late window open" in student.inner_text(f"section[data-assignment='{week0.pk}']")
    due_text = student.inner_text(f"section[data-assignment='{week0.pk}'] .when time >> nth=0")
    assert "UTC" not in due_text  # formatted by the page's script, in the viewer's zone
    assert local(week0.due_at, TOKYO)[11:] in due_text  # "HH:MM" in Tokyo (24 h in en-GB)

    # One problem on time, one in the late window, both from the problem pages.
    submit_from_problem_page(student, 48, "def embed(ids, weight, pad_id):\n    return ids\n")
    submit_from_problem_page(student, 57, "def attention(q, k, v, mask):\n    return q\n")
    student.reload()
    assert student.inner_text("#total-credit") == "1.5"
    assert "solved late" in student.inner_text(f"section[data-assignment='{week0.pk}']")
    shot(student, "02-student")

    # The instructor's matrix: 1 on time, 0.5 late; the CSV agrees.
    course = Course.objects.get(title="LLM internals")
    teacher.goto(f"/courses/{course.pk}/progress")
    row = teacher.locator("tr[data-student='sam']")
    cells = row.locator("td.cell")
    assert cells.nth(0).get_attribute("class") == "cell state-late"  # Week 0 is due first
    assert "0.5" in cells.nth(0).inner_text() and "late" in cells.nth(0).inner_text()
    assert "credit 1" in cells.nth(1).inner_text()
    assert teacher.locator("svg.solved-per-day rect.bar").count() >= 1
    teacher.click("#matrix thead th >> nth=0")  # sortable
    assert teacher.get_attribute("#matrix thead th >> nth=0", "aria-sort") == "descending"
    shot(teacher, "03-matrix")
    with teacher.expect_download() as download:
        teacher.click("#grades-csv")
    raw = Path(download.value.path()).read_bytes().decode("utf-8")
    assert raw.startswith("\ufeff")
    (sam,) = list(csv.DictReader(io.StringIO(raw[1:])))
    assert sam["username"] == "sam" and sam["email"] == "sam@example.org"
    assert sam["Week 1 / 48 embedding-tied-head-padding"] == "1"
    assert sam["Week 0 / 57 causal-attention-padding"] == "0.5"
    assert sam["late"] == "Week 0 / 57"

    # The cell links to the student's submissions, which the instructor may read.
    cells.nth(1).locator("a").click()
    teacher.click("td a[href^='/submissions/']")
    assert "return ids" in teacher.inner_text("#submitted-code")

    # An exam on problem 48 (issue 40): the student starts their 30 minutes, sees the timer
    # count down, and submits inside their window from the problem page.
    teacher.goto(f"/courses/{course.pk}/manage")
    teacher.fill("#exam-title", "Quiz")
    teacher.select_option("#exam-problems-select", ["48"])
    teacher.fill("#exam-opens-at", local(now - timedelta(minutes=5), NEW_YORK))
    teacher.fill("#exam-closes-at", local(now + timedelta(hours=2), NEW_YORK))
    teacher.fill("#exam-duration", "30")
    with teacher.expect_navigation():
        teacher.click("#create-exam-btn")
    assert "Quiz created" in teacher.inner_text(".message.success")
    student.goto(teacher.url)
    student.once("dialog", lambda dialog: dialog.accept())
    student.click("#exam-start-btn")
    first = student.wait_for_selector("#exam-timer").inner_text()
    student.wait_for_function(
        "(t) => document.querySelector('#exam-timer').textContent !== t", arg=first
    )
    assert re.fullmatch(r"(29|30):[0-5][0-9]", student.inner_text("#exam-timer"))
    shot(student, "04-exam")
    student.click("#exam-problems a[href='/problems/48/']")
    student.wait_for_selector("#exam-banner")
    student.evaluate("(c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c)",
                     "def embed(ids, weight, pad_id):\n    return ids\n")
    student.click("#submit-btn")
    done = student.wait_for_selector("#results .status-line[data-status=done]", timeout=60_000)
    assert done.get_attribute("data-verdict") == "AC"
    for tab in (teacher, student):
        tab.context.close()
    assert not errors, errors

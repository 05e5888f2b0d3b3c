"""An exam of an unpublished problem (issue 40): its students read it only inside their own
window, its instructors and site staff always, everyone else gets the catalog's 404 and finds
it listed nowhere; an exam of published problems warns its instructors before it opens. The
clock is django.utils.timezone.now, set by test_exams' fixture (no sleeping)."""

from __future__ import annotations

from typing import Any

import pytest
import test_exams
from course_cast import api, quick_user
from judge_cast import enqueued, make_problem, token_for  # noqa: F401 (fixtures)
from test_exams import make_exam

from judge_site.courses import exams
from judge_site.courses.services import CourseError
from judge_site.submissions.models import Submission

pytestmark = pytest.mark.django_db
clock, ines, course = test_exams.clock, test_exams.ines, test_exams.course  # their fixtures


@pytest.fixture
def secret(db: Any) -> Any:
    return make_problem(71, published=False, slug="secret-71", title="Secret midterm problem")


@pytest.fixture
def send(client: Any) -> Any:
    """A Run or Submit of problem 71 through the API, with each user's own token."""
    tokens: dict[int, str] = {}

    def post(user: Any, mode: str = "submit") -> Any:
        if user.pk not in tokens:
            tokens[user.pk] = token_for(user)
        return api(client, "POST", "/api/v1/submissions", tokens[user.pk],
                   {"problem": 71, "code": "def embed(ids, weight, pad_id):\n    return 1\n",
                    "mode": mode})

    return post


def page(client: Any, who: Any, path: str) -> Any:
    client.logout()
    if who is not None:
        client.force_login(who)
    return client.get(path)


@pytest.mark.usefixtures("enqueued")
def test_an_unpublished_exam_problem_opens_only_inside_the_students_window(
    client, clock, ines, bare_staff, course, alice, bob, secret, send
):
    exam = make_exam(course, [secret])  # 09:00 to 12:00, 30 minutes each
    dave = quick_user("dave")  # a user of no course of this exam
    clock.at(-5)
    for who in (None, dave, alice):  # anonymous, a non-member, a student before the window
        assert page(client, who, "/problems/71/").status_code == 404
    for who in (ines, bare_staff):  # its instructor and site staff always
        assert page(client, who, "/problems/71/").status_code == 200
    assert send(alice).status_code == 404
    assert send(dave).status_code == 404

    clock.at(1)
    assert page(client, alice, "/problems/71/").status_code == 404  # open, not started
    exams.exam_start(alice, exam)
    inside = page(client, alice, "/problems/71/")
    assert inside.status_code == 200 and "Secret midterm problem" in inside.content.decode()
    assert inside.context["stats_html"] == "" and inside.context["solution_notes"] is None
    assert send(alice).status_code == 201
    assert send(alice, "run").status_code == 201
    submitted = client.post("/problems/71/submit", {"code": "x = 1\n", "mode": "submit"},
                            HTTP_ACCEPT="application/json")
    assert submitted.status_code == 201, submitted.content
    assert page(client, bob, "/problems/71/").status_code == 404  # not started: not his window
    assert send(dave).status_code == 404

    clock.at(31)  # alice's 30 minutes are over
    assert page(client, alice, "/problems/71/").status_code == 404
    late = send(alice)
    assert late.status_code == 404 and "no such problem" in late.json()["error"]
    assert Submission.objects.filter(problem=secret).count() == 3
    clock.at(200)  # closed
    assert page(client, ines, "/problems/71/").status_code == 200


def test_an_unpublished_exam_problem_is_listed_nowhere_for_outsiders(
    client, clock, ines, course, alice, secret, problem
):
    exam = make_exam(course, [secret])
    dave = quick_user("dave")
    clock.at(1)
    exams.exam_start(alice, exam)  # even inside her window: the exam's page lists it
    for who in (None, dave, alice):
        listed = page(client, who, "/").content.decode()
        assert "Problem number 48" in listed and "Secret midterm problem" not in listed
        # The leaderboard (others' results, live while a contest is frozen): 404.
        assert page(client, who, "/problems/71/leaderboard/").status_code == 404
    for who in (dave, alice):
        numbers = [p["number"] for p in client.get(
            "/api/v1/problems", HTTP_AUTHORIZATION=f"Token {token_for(who)}").json()]
        assert numbers == [48]
    assert page(client, ines, "/problems/71/leaderboard/").status_code == 200
    exam_page = page(client, alice, f"/courses/{course.pk}/exams/{exam.pk}/")
    assert "/problems/71/" in exam_page.content.decode()


def test_unpublished_problems_go_into_an_exam_by_site_staff_only(
    clock, ines, bare_staff, course, secret
):
    clock.at(-60)
    fields = {"title": "Midterm", "problems": [71], "opens_at": "2026-12-07T09:00:00Z",
              "closes_at": "2026-12-07T12:00:00Z"}
    with pytest.raises(CourseError, match="no published problem 71 .*ask them to add it"):
        exams.exam_create(ines, course, fields)
    exam = exams.exam_create(bare_staff, course, fields)
    assert [i.problem_id for i in exam.items.all()] == [secret.pk]


def test_the_instructor_is_warned_of_a_published_problem_before_the_exam_opens(
    client, clock, ines, course, alice, problem, secret
):
    public = make_exam(course, [problem, secret])
    hidden = make_exam(course, [secret], title="Final")
    clock.at(-5)
    warned = page(client, ines, f"/courses/{course.pk}/exams/{public.pk}/").content.decode()
    assert 'id="exam-public-warning"' in warned and "48. Problem number 48" in warned
    assert "71." not in warned.split('id="exam-public-warning"')[1].split("</p>")[0]
    quiet = page(client, ines, f"/courses/{course.pk}/exams/{hidden.pk}/").content.decode()
    assert 'id="exam-public-warning"' not in quiet
    student = page(client, alice, f"/courses/{course.pk}/exams/{public.pk}/").content.decode()
    assert 'id="exam-public-warning"' not in student  # instructors only
    form = page(client, ines, f"/courses/{course.pk}/manage").content.decode()
    assert "A published problem stays public" in form and "(unpublished)" not in form
    clock.at(1)  # open now: too late to matter
    opened = page(client, ines, f"/courses/{course.pk}/exams/{public.pk}/").content.decode()
    assert 'id="exam-public-warning"' not in opened

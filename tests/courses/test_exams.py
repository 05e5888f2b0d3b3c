"""Exams and contests on a course (issue 40): each student's own window, refusals outside it,
visibility, hints off, the frozen package version, the contest scoreboard's freeze, the grade
CSV's columns. The clock is django.utils.timezone.now, set by the tests (no sleeping)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from course_cast import api, instructor, make_course, submit
from judge_cast import enqueued, inline_judging, make_problem  # noqa: F401 (fixtures)
from judge_cast import token_for as new_token

from judge_site.core import gates
from judge_site.courses import exams
from judge_site.courses.models import Exam, ExamProblem
from judge_site.hints import services as hint_services
from judge_site.submissions import services as submission_services
from judge_site.submissions.models import Submission

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


_KEYS: dict[str, str] = {}  # digest -> token: the table keeps only the digest


def token_for(user: Any) -> str:
    """The user's API token (one per user), made on first use."""
    from judge_site.accounts.models import ApiToken, token_digest

    found = ApiToken.objects.filter(user=user).first()
    if found is not None and found.digest in _KEYS:
        return _KEYS[found.digest]
    if found is not None:
        found.delete()
    key = new_token(user)
    _KEYS[token_digest(key)] = key
    return key


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def at(self, minutes: float) -> datetime:
        self.now = T0 + timedelta(minutes=minutes)
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    from django.utils import timezone

    c = Clock()
    monkeypatch.setattr(timezone, "now", lambda: c.now)
    return c


@pytest.fixture
def ines(db: Any) -> Any:
    return instructor()


@pytest.fixture
def course(ines, alice, bob) -> Any:
    return make_course(ines, "LLM internals", alice, bob, joined=T0 - timedelta(days=30))


def make_exam(course: Any, problems: list[Any], **extra: Any) -> Exam:
    fields = {"title": "Midterm", "opens_at": T0, "closes_at": T0 + timedelta(hours=3),
              "duration_min": 30, **extra}
    exam = Exam.objects.create(course=course, **fields)
    for i, p in enumerate(problems):
        ExamProblem.objects.create(exam=exam, problem=p, position=i)
    return exam


def send(client: Any, user: Any, number: int = 48, mode: str = "submit") -> Any:
    return api(client, "POST", "/api/v1/submissions", token_for(user),
               {"problem": number, "code": "def embed(ids, weight, pad_id):\n    return 1\n",
                "mode": mode})


@pytest.mark.usefixtures("enqueued")
def test_a_30_minute_exam_refuses_minute_31_and_accepts_a_later_starter(
    client, clock, ines, course, alice, bob, problem
):
    clock.at(-60)
    created = api(client, "POST", f"/api/v1/courses/{course.pk}/exams", token_for(ines), {
        "title": "Midterm", "kind": "exam", "problems": [48], "opens_at": T0.isoformat(),
        "closes_at": (T0 + timedelta(hours=3)).isoformat(), "duration_min": 30,
    })
    assert created.status_code == 201, created.content
    exam_id = created.json()["id"]
    start = f"/api/v1/courses/{course.pk}/exams/{exam_id}/start"
    early = api(client, "POST", start, token_for(alice))
    assert early.status_code == 403 and "opens at 2026-12-07 09:00 UTC" in early.json()["error"]

    clock.at(0)
    started = api(client, "POST", start, token_for(alice))
    assert started.status_code == 201
    assert started.json()["ends_at"] == (T0 + timedelta(minutes=30)).isoformat()
    assert api(client, "POST", start, token_for(alice)).status_code == 200  # once only
    clock.at(10)
    assert api(client, "POST", start, token_for(bob)).status_code == 201
    clock.at(29)
    assert send(client, alice).status_code == 201

    clock.at(31)
    late = send(client, alice)
    assert late.status_code == 403
    assert late.json() == {"error": "window: problem 48 is part of Midterm: your time ended at "
                                    "2026-12-07 09:30 UTC; it takes no more submissions"}
    assert send(client, alice, mode="run").status_code == 403  # a Run too
    assert send(client, bob).status_code == 201  # started at minute 10: until minute 40
    client.force_login(alice)  # the problem page's Submit says the same
    page = client.post("/problems/48/submit", {"code": "x = 1\n", "mode": "submit"},
                       HTTP_ACCEPT="application/json")
    assert page.status_code == 403 and page.json()["field"] == "window"
    assert "your time ended" in page.json()["error"]
    clock.at(41)
    assert send(client, bob).status_code == 403
    assert Submission.objects.count() == 2  # the refused ones stored nothing


def test_an_extension_lengthens_the_students_own_window(clock, ines, course, alice, problem):
    exam = make_exam(course, [problem])
    exams.exam_extend(ines, exam, alice.pk, "15")  # given before she starts
    clock.at(5)
    exams.exam_start(alice, exam)
    clock.at(49)
    assert gates.problem_gate(alice, problem).open
    clock.at(50)
    assert not gates.problem_gate(alice, problem).open
    with pytest.raises(Exception, match="extra_min"):
        exams.exam_extend(ines, exam, alice.pk, "-3")


def test_problems_are_visible_to_students_only_inside_their_window(
    client, clock, ines, bare_staff, course, alice, bob, problem
):
    exam = make_exam(course, [problem])
    clock.at(-5)
    client.force_login(alice)
    before = client.get("/problems/48/")
    assert before.status_code == 403 and "opens at 2026-12-07 09:00 UTC" in before.content.decode()
    for someone in (ines, bare_staff):  # the course's instructor and site staff see it
        client.force_login(someone)
        assert client.get("/problems/48/").status_code == 200
    clock.at(1)
    client.force_login(alice)
    ready = client.get("/problems/48/")
    assert ready.status_code == 403 and "start it on its page" in ready.content.decode()
    started = client.post(f"/courses/{course.pk}/exams/{exam.pk}/start")
    assert started.status_code == 302
    inside = client.get("/problems/48/")
    assert inside.status_code == 200 and 'id="exam-banner"' in inside.content.decode()
    page = client.get(f"/courses/{course.pk}/exams/{exam.pk}/").content.decode()
    assert 'id="exam-timer"' in page and "/problems/48/" in page
    clock.at(40)
    after = client.get("/problems/48/")
    assert after.status_code == 403 and "your time ended" in after.content.decode()
    assert 'id="exam-timer"' not in client.get(f"/courses/{course.pk}/exams/{exam.pk}/").content.decode()


def test_hints_are_off_inside_the_window(clock, course, alice, problem, monkeypatch):
    exam = make_exam(course, [problem])
    asked: list[Any] = []
    monkeypatch.setattr(hint_services, "problem_spec", lambda *a: asked.append(a) or
                        hint_services.HintSpec(enabled=False))
    clock.at(1)
    exams.exam_start(alice, exam)
    assert hint_services.hints_for(alice, problem) == [] and not asked
    outsider = make_problem(49, slug="other")
    hint_services.hints_for(alice, outsider)
    assert asked  # another problem asks the ladders as before


@pytest.mark.usefixtures("inline_judging")
def test_a_submission_in_the_window_is_judged_against_the_frozen_version(
    client, clock, course, alice, bob, problem, monkeypatch,
    django_capture_on_commit_callbacks,
):
    loaded: list[tuple[str, str]] = []
    monkeypatch.setattr(submission_services, "package_of",
                        lambda folder, version: loaded.append((folder, version)) or object())
    exam = make_exam(course, [problem])
    clock.at(1)
    exams.exam_start(alice, exam)  # the exam opens: v-test-1 recorded
    type(problem).objects.filter(pk=problem.pk).update(version="v-test-2", package_dir="/v2")
    clock.at(2)
    outsider = make_problem(50, slug="p50")
    with django_capture_on_commit_callbacks(execute=True):
        assert send(client, alice).status_code == 201
        assert send(client, bob).status_code == 403  # bob has not started
        assert send(client, alice, number=50).status_code == 201
    assert loaded == [("/nonexistent", "v-test-1"), (outsider.package_dir, outsider.version)]
    assert ExamProblem.objects.get(exam=exam).frozen_version == "v-test-1"


def board(client: Any, user: Any, course: Any, exam: Exam) -> dict[str, Any]:
    response = api(client, "GET", f"/api/v1/courses/{course.pk}/exams/{exam.pk}/scoreboard",
                   token_for(user))
    assert response.status_code == 200, response.content
    return response.json()


def test_the_contest_scoreboard_freezes_for_students_and_staff_unfreeze_it(
    client, clock, ines, course, alice, bob, problem
):
    p57 = make_problem(57, slug="causal-attention")
    contest = make_exam(course, [problem, p57], title="Contest", kind="contest",
                        closes_at=T0 + timedelta(hours=2), duration_min=None, freeze_min=60)
    for student in (alice, bob):
        exams.exam_start(student, contest)
    submit(alice, problem, "AC", T0 + timedelta(minutes=10))
    submit(bob, problem, "WA", T0 + timedelta(minutes=20))
    submit(bob, problem, "AC", T0 + timedelta(minutes=30))
    submit(alice, p57, "AC", T0 + timedelta(minutes=70))  # after the freeze
    submit(bob, p57, "AC", T0 - timedelta(minutes=30))  # before his window: never counts
    clock.at(90)
    seen = board(client, bob, course, contest)
    assert seen["frozen"] is True
    assert [(r["username"], r["solved"], r["penalty"]) for r in seen["rows"]] == [
        ("alice", 1, 10), ("bob", 1, 50)]
    assert seen["rows"][0]["problems"][1] == {"solved": False, "rejected": 0, "minutes": 0,
                                              "pending": 1}
    live = board(client, ines, course, contest)
    assert live["frozen"] is False and live["rows"][0]["solved"] == 2
    client.force_login(ines)
    page = client.get(f"/courses/{course.pk}/exams/{contest.pk}/").content.decode()
    assert 'id="unfreeze-btn"' in page
    client.force_login(bob)
    assert client.post(f"/courses/{course.pk}/exams/{contest.pk}/unfreeze").status_code == 403
    unfrozen = api(client, "POST", f"/api/v1/courses/{course.pk}/exams/{contest.pk}/unfreeze",
                   token_for(ines))
    assert unfrozen.json() == {"exam": contest.pk, "unfrozen": True}
    after = board(client, bob, course, contest)
    assert after["frozen"] is False and after["rows"][0]["solved"] == 2

    # The grade CSV: the columns it had, then solved and penalty per exam.
    response = api(client, "GET", f"/api/v1/courses/{course.pk}/grades.csv", token_for(ines))
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8")[1:])))
    assert rows[0] == ["username", "email", "total", "late", "Contest / solved",
                       "Contest / penalty"]
    assert rows[1] == ["alice", "", "0", "", "2", "80"]
    assert rows[2] == ["bob", "", "0", "", "1", "50"]


@pytest.mark.parametrize("body, error", [
    ({"title": "M", "problems": [48], "opens_at": "soon", "closes_at": "later"}, "opens_at"),
    ({"title": "M", "problems": [48], "opens_at": "2026-12-07T10:00:00Z",
      "closes_at": "2026-12-07T09:00:00Z"}, "closes_at: after opens_at"),
    ({"title": "M", "problems": [48], "opens_at": "2026-12-07T09:00:00Z",
      "closes_at": "2026-12-07T10:00:00Z", "duration_min": -5}, "duration_min"),
    ({"title": "M", "kind": ["exam"], "problems": [48]}, "kind"),
    ({"title": "M", "assignment": {"id": 1}, "opens_at": "2026-12-07T09:00:00Z",
      "closes_at": "2026-12-07T10:00:00Z"}, "assignment"),
])
def test_bad_exam_fields_get_a_400_that_names_them(client, ines, course, problem, body, error):
    response = api(client, "POST", f"/api/v1/courses/{course.pk}/exams", token_for(ines), body)
    assert response.status_code in (400, 404) and error in response.json()["error"]
    assert not Exam.objects.exists()


def test_a_student_may_not_create_an_exam_and_a_stranger_sees_no_course(
    client, course, alice, problem
):
    stranger = instructor("stranger")
    for user, status in ((alice, 403), (stranger, 404)):
        response = api(client, "POST", f"/api/v1/courses/{course.pk}/exams", token_for(user), {})
        assert response.status_code == status

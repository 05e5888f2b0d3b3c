"""Grades back to the platform (AGS), deep linking and the roster (NRPS), end to end against
the simulated platform of lti_platform.py: a launch signs the student in, a Submit is judged
through the real services (the fake engine of tests/judge_cast.py gives the verdict), and the
platform's score endpoint receives 1.0 on time, 0.5 late, once; a platform that is down gets
the score later from the pending row."""

from __future__ import annotations

import json
from typing import Any

import jwt
import pytest
from jwcrypto.jwk import JWK
from lti_tool.models import LtiUser

from judge_site.courses.models import Membership, Role
from judge_site.lti import grades, roster
from judge_site.lti.models import CourseLink, GradePush, PushState
from judge_site.submissions import services as submissions
from tests.courses.course_cast import ago, later, make_assignment
from tests.lti.lti_platform import INSTRUCTOR, LEARNER
from tests.lti.lti_steps import launch

pytestmark = pytest.mark.django_db

AC_CODE = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"


@pytest.fixture
def sent_at_once(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The Celery enqueue of a push replaced by the send itself (what the task does)."""
    sent: list[int] = []

    def send(push_id: int) -> None:
        sent.append(push_id)
        grades.grade_push_send(push_id)

    monkeypatch.setattr(grades, "_enqueue_send", send)
    return sent


def student_launch(client: Any, platform: Any, assignment: Any, sub: str = "lms-sam") -> Any:
    platform.tool_jwks = client.get("/lti/jwks/").json()
    response = launch(client, platform, sub=sub, custom={"assignment_id": str(assignment.pk)})
    assert response.status_code == 302, response.content[:300]
    return LtiUser.objects.get(sub=sub).auth_user


def submit(user: Any, problem: Any, capture: Any, code: str = AC_CODE) -> None:
    with capture(execute=True):
        submissions.submission_create(user, problem, code, "submit")


@pytest.mark.parametrize("late, expected", [(False, 1.0), (True, 0.5)])
def test_an_accepted_submit_reaches_the_platforms_gradebook(
    client: Any, platform: Any, linked_course: Any, problem: Any, inline_judging: Any,
    sent_at_once: list[int], django_capture_on_commit_callbacks: Any, late: bool,
    expected: float,
) -> None:
    window = {"due": ago(hours=2), "late_until": later(days=1), "late_credit": 0.5} if late else {}
    week = make_assignment(linked_course, [problem], **window)
    sam = student_launch(client, platform, week)
    submit(sam, problem, django_capture_on_commit_callbacks)
    score = platform.latest_score(1)
    assert score is not None and score["scoreGiven"] == expected and score["scoreMaximum"] == 1
    assert score["userId"] == "lms-sam" and score["gradingProgress"] == "FullyGraded"
    assert platform.tokens_issued == 1  # the tool's client assertion was checked and accepted
    push = GradePush.objects.get()
    assert push.state == PushState.SENT and push.attempts == 1
    # The same credit again (a second AC) sends nothing: the platform already has it.
    submit(sam, problem, django_capture_on_commit_callbacks)
    assert len(platform.scores["/lineitems/1/scores"]) == 1


def test_a_wrong_answer_then_an_accepted_one_leaves_the_latest_score(
    client: Any, platform: Any, linked_course: Any, problem: Any, inline_judging: Any,
    sent_at_once: list[int], django_capture_on_commit_callbacks: Any,
) -> None:
    week = make_assignment(linked_course, [problem])
    sam = student_launch(client, platform, week)
    submit(sam, problem, django_capture_on_commit_callbacks, code="# WRONG\n" + AC_CODE)
    assert platform.latest_score(1)["scoreGiven"] == 0  # type: ignore[index]
    submit(sam, problem, django_capture_on_commit_callbacks)
    assert platform.latest_score(1)["scoreGiven"] == 1  # type: ignore[index]
    assert GradePush.objects.get().version == 2


def test_a_platform_that_is_down_gets_the_score_from_the_pending_row_later(
    client: Any, platform: Any, linked_course: Any, problem: Any, inline_judging: Any,
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any,
) -> None:
    week = make_assignment(linked_course, [problem])
    sam = student_launch(client, platform, week)
    queued: list[int] = []
    monkeypatch.setattr(grades, "_enqueue_send", queued.append)  # the broker took the task...
    submit(sam, problem, django_capture_on_commit_callbacks)
    (push_id,) = queued
    platform.fail_scores = 1  # ...and the platform is down when the worker sends it
    with pytest.raises(grades.GradePushError):  # Celery retries this with backoff
        grades.grade_push_send(push_id)
    push = GradePush.objects.get()
    assert push.state == PushState.PENDING and "503" in push.last_error
    assert platform.latest_score(1) is None
    # Every retry lost (a restart): the periodic sweep finds the row and queues it again.
    queued.clear()
    assert grades.grade_push_sweep(older_than_s=0) == 1 and queued == [push_id]
    assert grades.grade_push_send(push_id) == "sent"
    assert platform.latest_score(1)["scoreGiven"] == 1  # type: ignore[index]
    assert grades.grade_push_sweep(older_than_s=0) == 0  # nothing pending any more
    assert grades.grade_push_send(push_id) == "already sent"  # a duplicate task sends nothing


def test_a_send_overtaken_by_a_newer_score_leaves_the_row_pending(
    client: Any, platform: Any, linked_course: Any, problem: Any, inline_judging: Any,
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any,
) -> None:
    week = make_assignment(linked_course, [problem])
    sam = student_launch(client, platform, week)
    monkeypatch.setattr(grades, "_enqueue_send", lambda push_id: None)
    submit(sam, problem, django_capture_on_commit_callbacks)
    push = GradePush.objects.get()
    real_put = grades.AssignmentsGradesService.put_grade

    def put_then_rescore(self: Any, grade: Any, lineitem: Any = None) -> Any:
        answer = real_put(self, grade, lineitem)
        GradePush.objects.filter(pk=push.pk).update(version=push.version + 1, score_given=0.0)
        return answer

    monkeypatch.setattr(grades.AssignmentsGradesService, "put_grade", put_then_rescore)
    assert grades.grade_push_send(push.pk) == "sent, but a newer score is pending"
    assert GradePush.objects.get().state == PushState.PENDING


def test_an_instructor_places_an_assignment_by_deep_linking(
    client: Any, platform: Any, linked_course: Any, problem: Any
) -> None:
    week = make_assignment(linked_course, [problem], title="Week 1: embeddings")
    other = make_assignment(linked_course, [problem], title="Week 2")
    response = launch(client, platform, sub="lms-ines", roles=INSTRUCTOR,
                      message_type="LtiDeepLinkingRequest")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Week 1: embeddings" in page and f'value="{other.pk}"' in page
    launch_id = response.context["launch_id"]
    answer = client.post("/lti/deep-link/", {"launch_id": launch_id, "assignment": [week.pk]})
    assert answer.status_code == 200
    assert answer.context["return_url"] == f"{platform.url}/deep-link-return"
    assert f"form-action 'self' {platform.url}" in answer["Content-Security-Policy"]
    (key,) = client.get("/lti/jwks/").json()["keys"]
    pem = JWK.from_json(json.dumps(key)).export_to_pem()
    body = jwt.decode(answer.context["jwt"], pem, algorithms=["RS256"],
                      audience="https://lms.example.edu")
    (item,) = body["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["type"] == "ltiResourceLink" and item["url"] == "http://testserver/lti/launch/"
    assert item["custom"] == {"assignment_id": str(week.pk)}
    assert item["lineItem"]["scoreMaximum"] == 1 and item["lineItem"]["label"] == week.title
    assert body["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-1"
    # Nothing picked, an expired picker, a student's deep linking: pages, never a 500.
    empty = client.post("/lti/deep-link/", {"launch_id": launch_id})
    assert empty.status_code == 400 and "Nothing was picked" in empty.content.decode()
    assert client.post("/lti/deep-link/", {"launch_id": "nope"}).status_code == 400
    student = launch(client, platform, sub="lms-sam", message_type="LtiDeepLinkingRequest")
    assert student.status_code == 403 and "Only instructors" in student.content.decode()


def test_the_roster_sets_roles_and_removes_dropped_students(
    client: Any, platform: Any, linked_course: Any, problem: Any
) -> None:
    week = make_assignment(linked_course, [problem])
    platform.tool_jwks = client.get("/lti/jwks/").json()
    for sub in ("lms-sam", "lms-tia", "lms-dan"):
        assert launch(client, platform, sub=sub, custom={"assignment_id": str(week.pk)},
                      name=f"{sub[4:].title()} Person").status_code == 302
    platform.roster = [
        {"user_id": "lms-sam", "roles": LEARNER, "status": "Active", "name": "Sam Person"},
        {"user_id": "lms-tia", "roles": INSTRUCTOR, "status": "Active", "name": "Tia Person"},
        {"user_id": "lms-dan", "roles": LEARNER, "status": "Inactive", "name": "Dan Person"},
        {"user_id": "lms-new", "roles": LEARNER, "status": "Active", "name": "Never Launched"},
    ]
    response = launch(client, platform, sub="lms-ines", roles=INSTRUCTOR, nrps=True)
    assert response.status_code == 302
    result = roster.roster_sync(CourseLink.objects.get().pk)
    assert result.as_dict() == {"members": 4, "roles_changed": 1, "removed": 1}
    roles = {m.user.username.split("-")[0]: m.role
             for m in Membership.objects.filter(course=linked_course).select_related("user")}
    assert roles["sam"] == Role.STUDENT and roles["tia"] == Role.INSTRUCTOR
    assert "dan" not in roles and "never" not in roles  # no account by the roster alone

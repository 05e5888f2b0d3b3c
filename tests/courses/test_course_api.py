"""The courses API (exact contract): the "done when" flow, the credit rules, and its errors."""

from __future__ import annotations

import csv
import io

import pytest
from course_cast import (
    ago,
    api,
    instructor,
    later,
    make_assignment,
    make_course,
    quick_user,
    submit,
)
from django.contrib.auth.models import Permission
from judge_cast import make_problem, token_for

from judge_site.courses.models import Assignment, Course, Membership
from judge_site.staff.models import AuditEntry
from judge_site.submissions.models import Submission

pytestmark = pytest.mark.django_db


def grades(client, token, course_id) -> list[dict[str, str]]:
    response = api(client, "GET", f"/api/v1/courses/{course_id}/grades.csv", token)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    raw = response.content.decode("utf-8")
    assert raw.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(raw[1:])))


def test_it_runs_the_course_flow_from_creation_to_grades(client, bare_staff, alice, bob, problem):
    p57 = make_problem(57, slug="causal-attention")
    bare_staff.user_permissions.add(Permission.objects.get(codename="create_course"))
    staff_token = token_for(bare_staff)
    created = api(client, "POST", "/api/v1/courses", staff_token, {"title": "LLM internals"})
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {"id", "join_code"}
    course_id, code = body["id"], body["join_code"]

    future = api(client, "POST", f"/api/v1/courses/{course_id}/assignments", staff_token, {
        "title": "Week 1", "problems": [48],
        "opens_at": ago(days=1).isoformat(), "due_at": later(days=6).isoformat(),
        "late_until": None, "late_credit": 0,
    })
    assert future.status_code == 201 and set(future.json()) == {"id"}
    past = api(client, "POST", f"/api/v1/courses/{course_id}/assignments", staff_token, {
        "title": "Week 0", "problems": [57],
        "opens_at": "2026-01-01T09:00:00+01:00", "due_at": ago(hours=2).isoformat(),
        "late_until": later(days=2).isoformat(), "late_credit": 0.5,
    })
    assert past.status_code == 201

    alice_token = token_for(alice)
    joined = api(client, "POST", f"/api/v1/courses/{course_id}/join", alice_token,
                 {"join_code": code})
    assert joined.status_code == 201 and joined.json()["role"] == "student"
    again = api(client, "POST", f"/api/v1/courses/{course_id}/join", alice_token,
                {"join_code": code.lower()})
    assert again.status_code == 200
    api(client, "POST", f"/api/v1/courses/{course_id}/join", token_for(bob), {"join_code": code})
    # They joined an hour ago (the course counts only what they submitted after joining).
    Membership.objects.filter(course_id=course_id, role="student").update(joined_at=ago(hours=1))

    submit(alice, problem, "WA", ago(minutes=30))
    submit(alice, problem, "AC", ago(minutes=20), speedup=1.7)
    submit(alice, p57, "AC", ago(minutes=10))  # after Week 0's due date, in its late window

    rows = grades(client, staff_token, course_id)
    by_user = {r["username"]: r for r in rows}
    assert set(by_user) == {"alice", "bob"}
    a = by_user["alice"]
    assert a["Week 1 / 48 problem-48"] == "1"
    assert a["Week 0 / 57 causal-attention"] == "0.5"
    assert a["Week 0 / total"] == "0.5" and a["Week 1 / total"] == "1" and a["total"] == "1.5"
    assert a["late"] == "Week 0 / 57"
    b = by_user["bob"]
    assert (b["Week 1 / 48 problem-48"], b["Week 0 / 57 causal-attention"], b["late"]) == (
        "0", "0", ""
    )
    assert list(rows[0])[:2] == ["username", "email"]
    assert Course.objects.get(pk=course_id).memberships.count() == 3
    assert p57.pk in Assignment.objects.get(pk=past.json()["id"]).problems.values_list(
        "pk", flat=True
    )


def test_the_submission_time_counts_not_the_judging_time(alice, problem):
    from judge_site.courses.grading import gradebook

    ines = instructor()
    course = make_course(ines, "C", alice)
    make_assignment(course, [problem], due=ago(hours=1), late_until=ago(minutes=30),
                    late_credit=0.5)
    sub = submit(alice, problem, "AC", ago(hours=2))
    Submission.objects.filter(pk=sub.pk).update(finished_at=ago(minutes=1))  # judged late
    cell = gradebook(course).rows[0].cells[0]
    assert (cell.credit, cell.state) == (1.0, "on_time")


def test_an_accepted_submission_after_every_window_earns_nothing(alice, problem):
    from judge_site.courses.grading import gradebook

    course = make_course(instructor(), "C", alice)
    make_assignment(course, [problem], due=ago(hours=2), late_until=ago(hours=1), late_credit=0.5)
    submit(alice, problem, "AC", ago(minutes=5))
    submit(alice, problem, "AC", ago(minutes=4), mode="run")
    cell = gradebook(course).rows[0].cells[0]
    assert (cell.credit, cell.state) == (0.0, "too_late")


def test_a_rejudge_that_changes_a_verdict_changes_the_credit(alice, problem):
    from judge_site.courses.grading import gradebook

    course = make_course(instructor(), "C", alice)
    make_assignment(course, [problem], due=ago(hours=1), late_until=later(hours=1),
                    late_credit=0.25)
    early = submit(alice, problem, "WA", ago(hours=2))
    accepted = submit(alice, problem, "AC", ago(minutes=10))
    assert gradebook(course).rows[0].cells[0].credit == 0.25
    Submission.objects.filter(pk=accepted.pk).update(verdict="WA")
    assert gradebook(course).rows[0].cells[0].credit == 0.0
    Submission.objects.filter(pk=early.pk).update(verdict="AC")
    assert gradebook(course).rows[0].cells[0].credit == 1.0


def test_a_run_an_internal_error_and_a_queued_judging_earn_no_credit(alice, problem):
    from judge_site.courses.grading import gradebook

    course = make_course(instructor(), "C", alice)
    make_assignment(course, [problem])
    submit(alice, problem, "AC", ago(hours=1), mode="run")
    submit(alice, problem, "IE", ago(hours=1))
    submit(alice, problem, "", ago(hours=1), status="queued")
    cell = gradebook(course).rows[0].cells[0]
    assert cell.credit == 0.0 and cell.tally is None


def test_an_extension_moves_the_due_date_and_the_late_window(client, alice, bob, problem):
    from judge_site.courses.grading import gradebook
    from judge_site.courses.services import extension_grant

    ines = instructor()
    course = make_course(ines, "C", alice, bob)
    assignment = make_assignment(course, [problem], due=ago(hours=3), late_until=ago(hours=2),
                                 late_credit=0.5)
    extension_grant(ines, assignment, alice.pk, later(days=1))
    submit(alice, problem, "AC", ago(minutes=5))
    submit(bob, problem, "AC", ago(minutes=5))
    rows = {r.user.username: r for r in gradebook(course).rows}
    assert rows["alice"].cells[0].credit == 1.0
    assert rows["bob"].cells[0].credit == 0.0
    entry = AuditEntry.objects.get(action="course.extension")
    assert entry.actor_name == "ines" and entry.detail["user_id"] == alice.pk


def test_only_holders_of_the_permission_create_courses_staff_or_not(
    client, alice, bob, bare_staff
):
    refused = api(client, "POST", "/api/v1/courses", token_for(alice), {"title": "Mine"})
    assert refused.status_code == 403 and "error" in refused.json()
    # is_staff alone (bare_staff holds no staff capability, and this is none) is not enough.
    assert bare_staff.is_staff and not bare_staff.has_perm("courses.create_course")
    staff = api(client, "POST", "/api/v1/courses", token_for(bare_staff), {"title": "Staff's"})
    assert staff.status_code == 403 and "courses.create_course" in staff.json()["error"]
    assert not Course.objects.exists()
    bob.user_permissions.add(Permission.objects.get(codename="create_course"))
    allowed = api(client, "POST", "/api/v1/courses", token_for(bob), {"title": "Bob's"})
    assert allowed.status_code == 201
    course = Course.objects.get(pk=allowed.json()["id"])
    assert Membership.objects.get(course=course, user=bob).role == "instructor"
    anonymous = api(client, "POST", "/api/v1/courses", None, {"title": "x"})
    assert anonymous.status_code in (401, 403) and "error" in anonymous.json()
    bad_token = api(client, "POST", "/api/v1/courses", "f" * 40, {"title": "x"})
    assert bad_token.status_code == 401


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{not json", "body: not valid JSON"),
        ([1, 2], "expected a JSON object"),
        ({"problems": [48], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "title: missing"),
        ({"title": "x", "problems": [], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "problems:"),
        ({"title": "x", "problems": [99], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "no published problem 99"),
        ({"title": "x", "problems": [50], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "no published problem 50"),
        ({"title": "x", "problems": ["abc"], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "not a problem number"),
        ({"title": "x", "problems": [48], "opens_at": "2026-01-01T00:00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "opens_at: give an offset"),
        ({"title": "x", "problems": [48], "opens_at": "yesterday",
          "due_at": "2026-01-02T00:00:00+00:00"}, "not an ISO 8601"),
        ({"title": "x", "problems": [48], "opens_at": "2026-01-03T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "due_at: before opens_at"),
        ({"title": "x", "problems": [48], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00", "late_until": "2026-01-01T12:00:00+00:00",
          "late_credit": 0.5}, "late_until: before due_at"),
        ({"title": "x", "problems": [48], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00", "late_until": "2026-01-03T00:00:00+00:00",
          "late_credit": 1.5}, "late_credit: a number between 0 and 1"),
        ({"title": "x", "problems": [48], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00", "late_until": "2026-01-03T00:00:00+00:00",
          "late_credit": "NaN"}, "late_credit"),
        ({"title": "x\x00", "problems": [48], "opens_at": "2026-01-01T00:00:00+00:00",
          "due_at": "2026-01-02T00:00:00+00:00"}, "title: contains a NUL"),
    ],
)
def test_a_bad_assignment_is_refused_with_a_message(client, problem, body, message):
    make_problem(50, slug="unpublished", published=False)
    ines = instructor()
    course = make_course(ines)
    response = api(client, "POST", f"/api/v1/courses/{course.pk}/assignments", token_for(ines),
                   body)
    assert response.status_code == 400, response.content
    assert message in response.json()["error"]
    assert not Assignment.objects.exists()


def test_a_wrong_join_code_or_an_unknown_course_is_404_with_a_message(client, alice):
    course = make_course(instructor())
    token = token_for(alice)
    wrong = api(client, "POST", f"/api/v1/courses/{course.pk}/join", token, {"join_code": "NOPE"})
    assert wrong.status_code == 404 and "join code" in wrong.json()["error"]
    for path in (f"/api/v1/courses/{10**30}/join", "/api/v1/courses/987654/join"):
        missing = api(client, "POST", path, token, {"join_code": course.join_code})
        assert missing.status_code == 404 and "error" in missing.json()
    no_code = api(client, "POST", f"/api/v1/courses/{course.pk}/join", token, {})
    assert no_code.status_code == 400 and "join_code" in no_code.json()["error"]
    assert not Membership.objects.filter(user=alice).exists()


def test_wrong_methods_and_huge_ids_answer_json(client, alice):
    token = token_for(alice)
    get_create = api(client, "GET", "/api/v1/courses", token)
    assert get_create.status_code == 405 and "error" in get_create.json()
    huge = api(client, "GET", f"/api/v1/courses/{10**30}/grades.csv", token)
    assert huge.status_code == 404 and "error" in huge.json()


def test_the_session_of_an_instructor_downloads_the_grades(client, alice, problem):
    ines = instructor()
    course = make_course(ines, "C", alice)
    make_assignment(course, [problem])
    client.force_login(ines)
    response = client.get(f"/api/v1/courses/{course.pk}/grades.csv")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert "alice" in response.content.decode()


def test_a_student_made_instructor_is_not_a_site_staff_member(client, alice):
    """An instructor of course X manages X only: no staff pages, no other course."""
    quick_user("zed")
    ines = instructor()
    course = make_course(ines, "Mine", alice)
    other = make_course(quick_user("olga"), "Other")
    token = token_for(ines)
    assert api(client, "GET", f"/api/v1/courses/{course.pk}/grades.csv", token).status_code == 200
    assert api(client, "GET", f"/api/v1/courses/{other.pk}/grades.csv", token).status_code == 404
    client.force_login(ines)
    assert client.get("/staff/").status_code in (302, 403, 404)


def test_a_rejudge_through_the_staff_service_moves_the_credit(
    alice, bare_staff, problem, fake_engine, monkeypatch
):
    """The judge's own rejudge (the fake engine gives a WA to code marked WRONG) takes the
    credit back on the next read of the grades."""
    from django.test import TestCase

    from judge_site.courses.grading import gradebook
    from judge_site.staff.models import RejudgeItem
    from judge_site.staff.services import rejudge

    monkeypatch.setattr(rejudge, "_enqueue_item", lambda item_id: None)
    course = make_course(instructor(), "C", alice)
    make_assignment(course, [problem])
    lucky = submit(alice, problem, "AC", ago(hours=1))
    Submission.objects.filter(pk=lucky.pk).update(code="x = 1  # WRONG")
    assert gradebook(course).rows[0].cells[0].credit == 1.0
    with TestCase.captureOnCommitCallbacks(execute=True):
        started = rejudge.rejudge_submission(bare_staff, lucky)
    for item in RejudgeItem.objects.filter(rejudge=started):
        rejudge.rejudge_item_judge(item.pk)
    lucky.refresh_from_db()
    assert lucky.verdict == "WA"
    cell = gradebook(course).rows[0].cells[0]
    assert (cell.credit, cell.tally.best_verdict) == (0.0, "WA")

"""A course sees only what a student gave it, route by route (issue 36).

The "done when": an instructor who imports a roster cannot open any submission of a student who
has not accepted, and after acceptance only that course's submissions made after joining. Each
route an instructor could read a submission through is checked: the submission's page and its
API, the student's submissions page, the progress matrix, the course leaderboard and
grades.csv.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from course_cast import ago, api, instructor, join, make_assignment, make_course, submit
from judge_cast import make_problem, token_for

from judge_site.courses import invitations, services
from judge_site.courses.models import Invitation, Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def roster(alice, bob, problem) -> dict[str, Any]:
    """ines invites alice (by username) and bob (by e-mail) from a roster; both worked on the
    course's problem 48 and on problem 49 (not the course's) before and after the import."""
    bob.email = "bob@uni.example"
    bob.save()
    ines = instructor()
    course = make_course(ines, "Kernels")
    make_assignment(course, [problem])
    p49 = make_problem(49, slug="not-in-course")
    before = {
        "alice": submit(alice, problem, "AC", ago(days=3), speedup=3.0),
        "bob": submit(bob, problem, "AC", ago(days=3), speedup=2.0),
        "alice49": submit(alice, p49, "AC", ago(days=3)),
    }
    report = invitations.roster_import(ines, course, "alice\nbob@uni.example\n")
    assert report.ok and not course.memberships.filter(role="student").exists()
    return {"ines": ines, "course": course, "p49": p49, "before": before}


def readable_by(client: Any, ines: Any, sub: Any) -> bool:
    """Whether ines opens the submission through its page or its API (the two must agree)."""
    client.force_login(ines)
    page = client.get(f"/submissions/{sub.pk}/")
    by_api = client.get(f"/api/v1/submissions/{sub.pk}")
    assert page.status_code in (200, 404) and by_api.status_code in (200, 404)
    assert (page.status_code == 200) == (by_api.status_code == 200), sub.pk
    code = sub.code.strip()  # "# AC by alice"
    assert (code in page.content.decode()) == (page.status_code == 200)
    assert (by_api.json().get("id") == sub.pk) == (by_api.status_code == 200)
    return page.status_code == 200


def grade_rows(client: Any, ines: Any, course: Any) -> dict[str, dict[str, str]]:
    client.force_login(ines)
    response = client.get(f"/api/v1/courses/{course.pk}/grades.csv")
    assert response.status_code == 200
    rows = csv.DictReader(io.StringIO(response.content.decode("utf-8")[1:]))
    return {r["username"]: r for r in rows}


def accept(client: Any, user: Any, *, share_email: bool = False) -> Membership:
    invitation = Invitation.objects.get(status="pending", address__in=[
        user.username.lower(), (user.email or "-").lower()
    ])
    response = api(client, "POST", f"/api/v1/courses/invitations/{invitation.pk}/accept",
                   token_for(user), {"share_email": share_email})
    assert response.status_code == 201, response.content
    return Membership.objects.get(course=invitation.course, user=user)


def test_before_acceptance_no_route_shows_an_invited_students_work(client, roster, alice, bob):
    ines, course = roster["ines"], roster["course"]
    for sub in roster["before"].values():
        assert not readable_by(client, ines, sub)
    later_sub = submit(alice, roster["before"]["alice"].problem, "AC", ago(minutes=1))
    assert not readable_by(client, ines, later_sub)
    client.force_login(ines)
    for user in (alice, bob):
        page = client.get(f"/courses/{course.pk}/students/{user.pk}/problems/48")
        assert page.status_code == 404
    progress = client.get(f"/courses/{course.pk}/progress").content.decode()
    assert 'data-student="alice"' not in progress and 'data-student="bob"' not in progress
    board = client.get(f"/courses/{course.pk}/leaderboard/48").content.decode()
    assert "alice" not in board and "bob" not in board
    assert grade_rows(client, ines, course) == {}


def test_after_acceptance_only_the_courses_problems_since_joining(client, roster, alice, problem):
    ines, course = roster["ines"], roster["course"]
    membership = accept(client, alice)
    assert membership.role == "student" and membership.joined_at > ago(minutes=1)
    after = submit(alice, problem, "WA", ago(seconds=0))
    after49 = submit(alice, roster["p49"], "AC", ago(seconds=0))
    # The submission page and the API.
    assert readable_by(client, ines, after)
    assert not readable_by(client, ines, roster["before"]["alice"])  # before joining
    assert not readable_by(client, ines, roster["before"]["alice49"])
    assert not readable_by(client, ines, after49)  # not the course's problem
    assert not readable_by(client, ines, roster["before"]["bob"])  # bob has not accepted
    # The student's submissions page lists the one made since joining.
    client.force_login(ines)
    listing = client.get(f"/courses/{course.pk}/students/{alice.pk}/problems/48").content.decode()
    assert f"/submissions/{after.pk}/" in listing
    assert f"/submissions/{roster['before']['alice'].pk}/" not in listing
    # The matrix, the leaderboard and the grades count nothing from before: the AC of three
    # days ago is not alice's credit, her WA since joining is her best verdict.
    progress = client.get(f"/courses/{course.pk}/progress").content.decode()
    row = progress.split('data-student="alice"')[1].split("</tr>")[0]
    assert "WA" in row and "AC" not in row and "3.00" not in row
    board = client.get(f"/courses/{course.pk}/leaderboard/48").content.decode()
    assert "alice" not in board  # no accepted Submit since joining
    rows = grade_rows(client, ines, course)
    assert set(rows) == {"alice"} and rows["alice"]["total"] == "0"
    # A resubmission after joining earns the credit.
    resubmitted = submit(alice, problem, "AC", ago(seconds=0), speedup=3.0)
    assert readable_by(client, ines, resubmitted)
    assert grade_rows(client, ines, course)["alice"]["total"] == "1"
    assert "alice" in client.get(f"/courses/{course.pk}/leaderboard/48").content.decode()


def test_a_student_who_joins_by_code_is_read_from_then_on(client, alice, problem):
    ines = instructor()
    course = make_course(ines, "Open course")
    make_assignment(course, [problem])
    earlier = submit(alice, problem, "AC", ago(hours=2))
    client.force_login(alice)
    assert client.post("/courses/join", {"join_code": course.join_code}).status_code == 302
    since = submit(alice, problem, "AC", ago(seconds=0))
    assert not readable_by(client, ines, earlier)
    assert readable_by(client, ines, since)


def test_a_student_removed_and_back_is_read_from_the_second_joining(client, alice, problem):
    ines = instructor()
    course = make_course(ines, "C", alice)  # joined 30 days ago
    make_assignment(course, [problem])
    first_term = submit(alice, problem, "AC", ago(days=2))
    assert readable_by(client, ines, first_term)
    services.student_remove(ines, course, alice.pk)
    join(course, alice, ago(days=1))
    assert not readable_by(client, ines, first_term)


def test_another_instructor_of_a_course_she_joined_sees_nothing_of_this_one(
    client, roster, alice, problem
):
    """alice joined otto's course long ago; ines's pending invitation gives ines nothing."""
    otto = instructor("otto")
    other = make_course(otto, "Otto's", alice)
    make_assignment(other, [problem])
    sub = roster["before"]["alice"]
    assert readable_by(client, otto, sub)
    assert not readable_by(client, roster["ines"], sub)
    assert Membership.objects.filter(course=other, user=alice).exists()


def test_the_statistics_count_no_failing_check_from_before_joining(client, alice, problem):
    from judge_site.courses.course_statistics import course_statistics
    from judge_site.courses.grading import gradebook

    failing = [{"name": "public_pad", "public": True, "verdict": "WA", "message": "differ"}]
    course = make_course(instructor(), "C", alice, joined=ago(hours=1))
    make_assignment(course, [problem])
    submit(alice, problem, "WA", ago(hours=2), tests=failing)
    [stats] = course_statistics(gradebook(course))
    assert stats.failing == [] and stats.median_attempts is None
    submit(alice, problem, "WA", ago(minutes=5), tests=failing)
    [stats] = course_statistics(gradebook(course))
    assert stats.failing == [("public_pad", 1, 1)]

"""Who gets what of a course: instructors of another course, its students and anonymous users
get nothing of its members, submissions or grades; its instructors read its students'
submissions to its problems, and nothing else."""

from __future__ import annotations

import pytest
from course_cast import ago, api, instructor, make_assignment, make_course, quick_user, submit
from judge_cast import make_problem, token_for

pytestmark = pytest.mark.django_db

INSTRUCTOR_PAGES = ("manage", "progress", "students/{alice}/problems/48")
INSTRUCTOR_POSTS = ("rotate-code", "roster", "instructors", "assignments",
                    "students/{alice}/remove")


@pytest.fixture
def course_setup(alice, bob, problem):
    ines = instructor()
    course = make_course(ines, "Secret course", alice)
    make_assignment(course, [problem])
    other_teacher = quick_user("otto")
    make_course(other_teacher, "Otto's course", bob)
    sub = submit(alice, problem, "AC", ago(hours=1), speedup=2.0)
    other = make_problem(49, slug="not-in-course")
    outside = submit(alice, other, "AC", ago(hours=1))
    return {"course": course, "ines": ines, "otto": other_teacher, "sub": sub,
            "outside": outside}


def _paths(course, alice, names):
    return [f"/courses/{course.pk}/" + n.format(alice=alice.pk) for n in names]


def test_outsiders_get_404_on_every_course_page_and_route(client, course_setup, alice, bob):
    course = course_setup["course"]
    pages = [f"/courses/{course.pk}/", f"/courses/{course.pk}/leaderboard/48",
             *_paths(course, alice, INSTRUCTOR_PAGES)]
    for outsider in (course_setup["otto"], bob):
        client.force_login(outsider)
        for path in pages:
            response = client.get(path)
            assert response.status_code == 404, (outsider, path)
            assert b"alice" not in response.content
        for path in _paths(course, alice, INSTRUCTOR_POSTS):
            assert client.post(path, {"username": "otto", "title": "x"}).status_code == 404
        token = token_for(outsider)
        for method, path in (
            ("GET", f"/api/v1/courses/{course.pk}/grades.csv"),
            ("POST", f"/api/v1/courses/{course.pk}/assignments"),
        ):
            response = api(client, method, path, token, {"title": "x"})
            assert response.status_code == 404 and b"alice" not in response.content
        client.logout()
    assert course.memberships.count() == 2


def test_a_student_gets_403_on_the_instructors_routes(client, course_setup, alice):
    course = course_setup["course"]
    client.force_login(alice)
    assert client.get(f"/courses/{course.pk}/").status_code == 200
    for path in _paths(course, alice, INSTRUCTOR_PAGES):
        assert client.get(path).status_code == 403, path
    for path in _paths(course, alice, INSTRUCTOR_POSTS):
        assert client.post(path, {"username": "alice"}).status_code == 403, path
    token = token_for(alice)
    grades = api(client, "GET", f"/api/v1/courses/{course.pk}/grades.csv", token)
    assert grades.status_code == 403 and "instructors" in grades.json()["error"]
    created = api(client, "POST", f"/api/v1/courses/{course.pk}/assignments", token, {})
    assert created.status_code == 403


def test_anonymous_users_are_sent_to_log_in_or_refused(client, course_setup, alice):
    course = course_setup["course"]
    for path in [f"/courses/{course.pk}/", *_paths(course, alice, INSTRUCTOR_PAGES)]:
        response = client.get(path)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    response = client.get(f"/api/v1/courses/{course.pk}/grades.csv")
    assert response.status_code == 401 and b"alice" not in response.content
    response = client.get(f"/submissions/{course_setup['sub'].pk}/")
    assert response.status_code == 404


def test_the_courses_instructor_reads_a_students_submission_to_its_problems(
    client, course_setup
):
    client.force_login(course_setup["ines"])
    page = client.get(f"/submissions/{course_setup['sub'].pk}/")
    assert page.status_code == 200
    assert "# AC by alice" in page.content.decode()  # the code is shown
    api_view = client.get(f"/api/v1/submissions/{course_setup['sub'].pk}")
    assert api_view.status_code == 200
    # A submission to a problem the course does not assign stays private.
    assert client.get(f"/submissions/{course_setup['outside'].pk}/").status_code == 404


def test_other_instructors_and_students_cannot_read_the_submission(client, course_setup, bob):
    for user in (course_setup["otto"], bob):
        client.force_login(user)
        assert client.get(f"/submissions/{course_setup['sub'].pk}/").status_code == 404
        assert client.get(f"/api/v1/submissions/{course_setup['sub'].pk}").status_code == 404


def test_a_removed_student_is_no_longer_readable_and_leaves_the_grades(
    client, course_setup, alice
):
    from judge_site.staff.models import AuditEntry

    course, ines = course_setup["course"], course_setup["ines"]
    client.force_login(ines)
    response = client.post(f"/courses/{course.pk}/students/{alice.pk}/remove")
    assert response.status_code == 302
    assert client.get(f"/submissions/{course_setup['sub'].pk}/").status_code == 404
    assert "alice" not in client.get(f"/api/v1/courses/{course.pk}/grades.csv").content.decode()
    entry = AuditEntry.objects.get(action="course.student_remove")
    assert entry.detail["student"] == "alice" and entry.actor_name == "ines"


def test_hostile_input_on_the_pages_gets_a_message_never_a_500(client, course_setup, alice):
    course, ines = course_setup["course"], course_setup["ines"]
    week = course.assignments.get()
    client.force_login(ines)
    base = f"/courses/{course.pk}"
    posts = [
        (f"{base}/instructors", {"username": "a\x00b"}),
        (f"{base}/roster", {"roster_text": "alice\x00\n"}),
        (f"{base}/roster", {"roster_text": "a" * 140_000}),  # beyond csv's field limit
        (f"{base}/roster", {"roster_text": "x@\nno body\n" + "@" * 300}),
        (f"{base}/email-sharing", {"share_email": "\x00"}),  # an instructor: not a student
        (f"/courses/invitations/{10**30}/accept", {"share_email": "on"}),
        ("/courses/invitations/0/decline", {}),
        (f"{base}/assignments", {"title": "t\x00", "problems": ["48"]}),
        (f"{base}/assignments", {"title": "t", "problem_numbers": "48 x", "tz": "Mars/Olympus"}),
        (f"{base}/assignments/{week.pk}/reschedule", {"due_at": "\x00", "late_credit": "abc"}),
        (f"{base}/assignments/{week.pk}/extension", {"user_id": str(10**30), "due_at": "x"}),
        (f"{base}/assignments/{10**30}/extension", {"user_id": "1"}),
        (f"{base}/students/{10**30}/remove", {}),
        ("/courses/join", {"join_code": "\x00"}),
        ("/courses/new", {"title": "\x00"}),
    ]
    for path, data in posts:
        response = client.post(path, data)
        assert response.status_code in (302, 404), (path, response.status_code)
    for path in (f"/courses/{10**30}/", f"{base}/students/{10**30}/problems/48",
                 f"{base}/students/{alice.pk}/problems/{10**30}", f"{base}/leaderboard/{10**30}"):
        assert client.get(path).status_code == 404, path
    client.force_login(alice)
    assert client.post("/courses/join", {"join_code": "\x00"}).status_code == 302

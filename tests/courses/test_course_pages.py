"""The course pages through Django's test client: the student's course page, the instructor's
matrix with its plots and statistics, the class leaderboard, and the audit of grade changes."""

from __future__ import annotations

import re

import pytest
from course_cast import ago, instructor, later, make_assignment, make_course, quick_user, submit
from django.contrib.auth.models import Permission
from judge_cast import make_problem

from judge_site.courses import services
from judge_site.courses.course_statistics import course_statistics
from judge_site.courses.grading import gradebook
from judge_site.courses.models import Course
from judge_site.staff.models import AuditEntry
from judge_site.submissions.models import Submission

pytestmark = pytest.mark.django_db

PUBLIC_FAIL = {"name": "public_pad", "public": True, "verdict": "WA", "message": "values differ"}
HIDDEN_FAIL = {"name": "hidden_secret_case", "public": False, "verdict": "WA", "message": "x"}
PASSED = {"name": "public_small", "public": True, "verdict": "AC", "message": ""}


@pytest.fixture
def term(alice, bob, problem):
    ines = instructor()
    p57 = make_problem(57, slug="causal-attention", title="Causal attention")
    p58 = make_problem(58, slug="online-softmax", title="Online softmax")
    course = make_course(ines, "LLM internals", alice, bob)
    week1 = make_assignment(course, [problem], title="Week 1", due=later(days=2))
    week0 = make_assignment(course, [p57], title="Week 0", due=ago(hours=3),
                            late_until=later(days=1), late_credit=0.5)
    make_assignment(course, [p58], title="Week 2", opens=later(days=5), due=later(days=9))
    submit(alice, problem, "WA", ago(hours=5), tests=[PASSED, PUBLIC_FAIL, HIDDEN_FAIL])
    submit(alice, problem, "AC", ago(hours=4), speedup=1.6)
    submit(alice, p57, "AC", ago(hours=1), speedup=0.8)
    submit(bob, problem, "WA", ago(hours=2), tests=[PASSED, PUBLIC_FAIL])
    submit(bob, problem, "TLE", ago(hours=2))
    submit(bob, problem, "AC", ago(hours=1), speedup=2.4)
    return {"course": course, "ines": ines, "week1": week1, "week0": week0, "p57": p57}


def test_the_student_sees_open_assignments_due_dates_and_credit(client, term, alice):
    client.force_login(alice)
    page = client.get(f"/courses/{term['course'].pk}/").content.decode()
    assert 'id="total-credit">1.5<' in page
    assert "Week 1" in page and "Week 0" in page and "Late window open" in page
    # Week 2 has not opened: its title and opening time, not its problem.
    assert "Week 2" in page and "Opens" in page and "Online softmax" not in page
    # Times go out as ISO 8601 for the page's script to show in the viewer's zone.
    due = term["week1"].due_at.isoformat()
    assert f'datetime="{due}"' in page
    assert "solved late" in page


def test_the_matrix_shows_best_verdict_speedup_attempts_and_late_cells(client, term, alice):
    client.force_login(term["ines"])
    page = client.get(f"/courses/{term['course'].pk}/progress").content.decode()
    alice_row = re.search(r'<tr data-student="alice">(.*?)</tr>', page, re.S).group(1)
    assert "verdict-AC" in alice_row and "1.60×" in alice_row and "2 tries" in alice_row
    assert 'class="cell state-late"' in alice_row and ">late<" in alice_row
    assert f"/courses/{term['course'].pk}/students/{alice.pk}/problems/48" in alice_row
    assert 'data-value="0.5"' in alice_row
    assert '<svg class="chart solved-per-day"' in page
    assert '<svg class="chart verdicts"' in page and 'class="v-TLE"' in page
    assert "/api/v1/courses/" in page and "grades.csv" in page
    # The submissions behind a cell are listed for the instructor, with links.
    listing = client.get(f"/courses/{term['course'].pk}/students/{alice.pk}/problems/48")
    assert listing.status_code == 200 and len(re.findall(r'href="/submissions/\d+/"', listing.content.decode())) == 2


def test_the_statistics_count_shares_fast_p_failing_checks_and_attempts(term, problem):
    stats = {s.problem.number: s for s in course_statistics(gradebook(term["course"]))}
    s48 = stats[48]
    assert (s48.students, s48.solved) == (2, 2)
    assert s48.fast == {1.0: 2, 1.5: 2, 2.0: 1}
    assert s48.median_attempts == 2.5  # alice 2, bob 3
    assert s48.failing == [("public_pad", 2, 2)]  # hidden names never appear
    s57 = stats[57]
    assert (s57.solved, s57.fast[1.0], s57.median_attempts) == (1, 0, 1)


def test_the_statistics_page_never_shows_a_hidden_test_name(client, term):
    client.force_login(term["ines"])
    page = client.get(f"/courses/{term['course'].pk}/progress").content.decode()
    assert "public_pad" in page and "hidden_secret_case" not in page
    assert "100% (2/2)" in page


def test_the_class_leaderboard_ranks_by_best_speedup(client, term, alice):
    client.force_login(alice)
    page = client.get(f"/courses/{term['course'].pk}/leaderboard/48").content.decode()
    table = page[page.index("<tbody>"):]
    assert table.index("bob") < table.index("alice") and "2.40×" in table
    # A rejected timing stored with a figure (before the grader dropped it) ranks nowhere.
    alices = Submission.objects.filter(user=alice, problem__number=48, verdict="AC").first()
    Submission.objects.filter(pk=alices.pk).update(
        benchmark={"speedup": 9.5, "trust": "rejected", "rule": "prepare_excess"}
    )
    page = client.get(f"/courses/{term['course'].pk}/leaderboard/48").content.decode()
    table = page[page.index("<tbody>"):]
    assert "9.50" not in table and table.index("bob") < table.index("alice")
    # A problem of an assignment that has not opened is not shown to students.
    assert client.get(f"/courses/{term['course'].pk}/leaderboard/58").status_code == 404
    assert client.get(f"/courses/{term['course'].pk}/leaderboard/49").status_code == 404


def test_a_new_student_joins_by_code_on_the_page(client, term):
    carol = quick_user("carol")
    client.force_login(carol)
    code = term["course"].join_code
    response = client.post("/courses/join", {"join_code": f" {code.lower()} "})
    assert response.status_code == 302
    assert response["Location"] == f"/courses/{term['course'].pk}/"
    wrong = client.post("/courses/join", {"join_code": "WRONG"}, follow=True)
    assert "no course has this join code" in wrong.content.decode()


def test_an_instructor_creates_a_course_and_an_assignment_in_their_time_zone(
    client, bare_staff, problem
):
    bare_staff.user_permissions.add(Permission.objects.get(codename="create_course"))
    client.force_login(bare_staff)
    response = client.post("/courses/new", {"title": "Kernels"})
    course_id = int(response["Location"].split("/")[2])
    client.post(f"/courses/{course_id}/assignments", {
        "title": "Week 1", "problems": ["48"], "tz": "Europe/Berlin",
        "opens_at": "2026-12-01T09:00", "due_at": "2026-12-08T17:00",
        "late_until": "", "late_credit": "",
    })
    course = Course.objects.get(pk=course_id)
    assert course.title == "Kernels" and course.memberships.get().user == bare_staff
    week = gradebook(course).assignments[0]
    assert week.due_at.isoformat() == "2026-12-08T16:00:00+00:00"  # 17:00 in Berlin
    assert week.late_until is None and [p.number for p in week.problem_list] == [48]


def test_grade_relevant_changes_are_audited(client, term, alice):
    ines, week0 = term["ines"], term["week0"]
    client.force_login(ines)
    client.post(f"/courses/{term['course'].pk}/assignments/{week0.pk}/reschedule",
                {"due_at": "2030-01-01T10:00", "tz": "UTC", "late_until": ""})
    entry = AuditEntry.objects.get(action="course.deadline")
    assert entry.actor_name == "ines" and set(entry.detail["changed"]) == {"due_at", "late_until"}
    client.post(f"/courses/{term['course'].pk}/assignments/{week0.pk}/extension",
                {"user_id": str(alice.pk), "due_at": "2031-01-01T10:00", "tz": "UTC"})
    assert AuditEntry.objects.filter(action="course.extension").count() == 1
    # Moving the deadline past alice's late AC makes it on time: the credit follows.
    cell = next(c for c in gradebook(term["course"]).rows[0].cells
                if c.column.assignment.pk == week0.pk)
    assert (cell.credit, cell.state) == (1.0, "on_time")
    with pytest.raises(services.CourseError):
        services.assignment_reschedule(ines, week0, {"due_at": "2020-01-01T00:00:00+00:00"})


def test_the_admin_audits_deadlines_extensions_and_removals(client, term, alice, problem):
    admin = quick_user("root", staff=True)
    admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    assert client.get("/admin/courses/course/").status_code == 200
    assert client.get(f"/admin/courses/course/{term['course'].pk}/change/").status_code == 200
    week1 = term["week1"]
    item = week1.items.get()
    response = client.post(f"/admin/courses/assignment/{week1.pk}/change/", {
        "course": term["course"].pk, "title": "Week 1",
        "opens_at_0": "2026-01-01", "opens_at_1": "09:00:00",
        "due_at_0": "2030-06-01", "due_at_1": "17:00:00",
        "late_until_0": "", "late_until_1": "", "late_credit": "0",
        "items-TOTAL_FORMS": "1", "items-INITIAL_FORMS": "1", "items-MIN_NUM_FORMS": "0",
        "items-MAX_NUM_FORMS": "1000", "items-0-id": item.pk, "items-0-assignment": week1.pk,
        "items-0-problem": problem.pk, "items-0-position": "0",
        "extensions-TOTAL_FORMS": "1", "extensions-INITIAL_FORMS": "0",
        "extensions-MIN_NUM_FORMS": "0", "extensions-MAX_NUM_FORMS": "1000",
        "extensions-0-assignment": week1.pk, "extensions-0-user": alice.pk,
        "extensions-0-due_at_0": "2030-07-01", "extensions-0-due_at_1": "12:00:00",
    })
    assert response.status_code == 302
    deadline = AuditEntry.objects.get(action="course.deadline")
    assert deadline.detail["via"] == "admin" and set(deadline.detail["changed"]) == {
        "opens_at", "due_at"
    }
    extension = AuditEntry.objects.get(action="course.extension")
    assert extension.detail["user_id"] == alice.pk and extension.detail["via"] == "admin"
    assert week1.extensions.get().granted_by == admin
    membership = term["course"].memberships.get(user=alice)
    client.post(f"/admin/courses/membership/{membership.pk}/delete/", {"post": "yes"})
    removal = AuditEntry.objects.get(action="course.student_remove")
    assert removal.detail["student"] == "alice" and removal.actor_name == "root"


def test_rotating_the_join_code_retires_the_old_one(client, term):
    course, old = term["course"], term["course"].join_code
    client.force_login(term["ines"])
    client.post(f"/courses/{course.pk}/rotate-code")
    course.refresh_from_db()
    assert course.join_code != old and len(course.join_code) == 10
    assert AuditEntry.objects.filter(action="course.rotate_code").count() == 1
    client.force_login(quick_user("late_joiner"))
    refused = client.post("/courses/join", {"join_code": old}, follow=True)
    assert "no course has this join code" in refused.content.decode()


@pytest.mark.parametrize("who", ["student", "staff"])
def test_a_user_without_the_permission_cannot_create_a_course_on_the_page(
    client, alice, bare_staff, who
):
    """Site staff without courses.create_course are refused as a student is."""
    client.force_login(alice if who == "student" else bare_staff)
    assert "Create a course" not in client.get("/courses/").content.decode()
    page = client.post("/courses/new", {"title": "Mine"}, follow=True).content.decode()
    assert "you may not create courses" in page and not Course.objects.exists()


def test_the_matrix_costs_the_same_queries_for_any_class_size(
    client, term
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            assert client.get(f"/courses/{term['course'].pk}/progress").status_code == 200
        return len(seen)

    client.force_login(term["ines"])
    before = queries()
    for i in range(5):
        student = quick_user(f"extra{i}")
        term["course"].memberships.create(user=student, role="student")
        submit(student, term["p57"], "WA", ago(hours=1), tests=[PUBLIC_FAIL])
    assert queries() == before


def test_a_problem_unpublished_later_stays_in_the_grades_without_a_link(client, term, alice):
    term["p57"].published = False
    term["p57"].save()
    client.force_login(alice)
    page = client.get(f"/courses/{term['course'].pk}/").content.decode()
    assert "57. Causal attention" in page and "(not available now)" in page
    assert 'href="/problems/57/"' not in page
    assert 'id="total-credit">1.5<' in page

"""The roster import (all or nothing, unknown rows reported) and the grade CSV's escaping."""

from __future__ import annotations

import csv
import io

import pytest
from course_cast import ago, instructor, make_assignment, make_course, quick_user, submit
from django.contrib.auth import get_user_model

from judge_site.courses import services
from judge_site.courses.export import grades_csv, safe_cell
from judge_site.courses.grading import gradebook
from judge_site.courses.models import Membership

pytestmark = pytest.mark.django_db


def students(course) -> set[str]:
    return set(
        Membership.objects.filter(course=course, role="student").values_list(
            "user__username", flat=True
        )
    )


def test_it_imports_usernames_and_emails_with_a_header(alice, bob):
    bob.email = "Bob@Example.org"
    bob.save()
    ines = instructor()
    course = make_course(ines, "C", alice)
    report = services.roster_import(
        ines, course, "\ufeffusername,name\r\nalice,Alice A.\r\nbob@example.org,Bob\r\n\r\n"
    )
    assert report.ok and report.added == ["bob"] and report.already == ["alice"]
    assert students(course) == {"alice", "bob"}


def test_unknown_rows_are_reported_and_nothing_is_imported(alice, bob):
    ines = instructor()
    course = make_course(ines)
    report = services.roster_import(ines, course, "alice\nnobody\nbob\nghost@example.org\n")
    assert not report.ok
    assert [(n, v) for n, v, _ in report.unknown] == [(2, "nobody"), (4, "ghost@example.org")]
    assert students(course) == set()


def test_an_email_shared_by_two_accounts_is_reported(alice, bob):
    get_user_model().objects.filter(pk__in=[alice.pk, bob.pk]).update(email="same@example.org")
    ines = instructor()
    course = make_course(ines)
    report = services.roster_import(ines, course, "same@example.org\n")
    assert report.unknown == [(1, "same@example.org", "matches several accounts")]
    assert students(course) == set()


def test_the_manage_page_imports_an_uploaded_roster_and_reports_unknown_rows(client, alice, bob):
    from django.core.files.uploadedfile import SimpleUploadedFile

    ines = instructor()
    course = make_course(ines)
    client.force_login(ines)
    bad = SimpleUploadedFile("roster.csv", b"alice\nnobody\n", content_type="text/csv")
    page = client.post(f"/courses/{course.pk}/roster", {"roster": bad}, follow=True)
    assert "Nothing imported" in page.content.decode() and "line 2: nobody" in page.content.decode()
    assert students(course) == set()
    good = SimpleUploadedFile("roster.csv", b"alice\nbob\n", content_type="text/csv")
    page = client.post(f"/courses/{course.pk}/roster", {"roster": good}, follow=True)
    assert "Added 2 students" in page.content.decode()
    assert students(course) == {"alice", "bob"}


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_cell_a_spreadsheet_would_run_is_written_as_text(start):
    assert safe_cell(f"{start}SUM(A1)") == f"'{start}SUM(A1)"


def test_safe_cells_stay_as_they_are():
    assert [safe_cell(v) for v in ("alice", "0.5", "1", "", "a=b")] == [
        "alice", "0.5", "1", "", "a=b"
    ]


def test_the_grade_csv_escapes_titles_and_usernames(problem):
    evil = quick_user("-2+3")
    at = quick_user("@cmd")
    course = make_course(instructor(), "C", evil, at)
    make_assignment(course, [problem], title='=HYPERLINK("http://x","y")')
    submit(evil, problem, "AC", ago(hours=1))
    text = grades_csv(gradebook(course))
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text[1:])))
    assert rows[0][2] == "'=HYPERLINK(\"http://x\",\"y\") / 48 problem-48"
    names = {r[0] for r in rows[1:]}
    assert names == {"'-2+3", "'@cmd"}
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    evil_row = next(r for r in rows if r[0] == "'-2+3")
    assert evil_row[2] == "1"

"""The roster import (it invites, never enrols; malformed rows reported, all or nothing; the
same report whether or not an address has an account) and the grade CSV's escaping."""

from __future__ import annotations

import csv
import io

import pytest
from course_cast import ago, instructor, make_assignment, make_course, quick_user, submit
from django.contrib.auth import get_user_model

from judge_site.courses import invitations, services
from judge_site.courses.export import grades_csv, safe_cell
from judge_site.courses.grading import gradebook
from judge_site.courses.models import Invitation, Membership

pytestmark = pytest.mark.django_db


def students(course) -> set[str]:
    return set(
        Membership.objects.filter(course=course, role="student").values_list(
            "user__username", flat=True
        )
    )


def invited(course) -> set[str]:
    return set(Invitation.objects.filter(course=course).values_list("address", flat=True))


def test_it_invites_usernames_and_emails_with_a_header_and_enrols_nobody(alice, bob):
    bob.email = "Bob@Example.org"
    bob.save()
    ines = instructor()
    course = make_course(ines, "C")
    report = invitations.roster_import(
        ines, course, "\ufeffusername,name\r\nalice,Alice A.\r\nbob@example.org,Bob\r\n\r\n"
    )
    assert report.ok
    assert [(r.line, r.value, r.status) for r in report.rows] == [
        (2, "alice", "invited"), (3, "bob@example.org", "invited")
    ]
    assert invited(course) == {"alice", "bob@example.org"}
    assert students(course) == set()  # an invitation is not a membership


def test_rows_with_and_without_an_account_are_reported_alike(alice, bob):
    """The report cannot tell an instructor which addresses have accounts."""
    bob.email = "bob@example.org"
    bob.save()
    ines = instructor()
    course = make_course(ines)
    report = invitations.roster_import(
        ines, course, "alice\nnobody\nbob@example.org\nghost@example.org\nalice\n"
    )
    assert report.ok
    assert [(r.value, r.status, r.error) for r in report.rows] == [
        ("alice", "invited", ""), ("nobody", "invited", ""),
        ("bob@example.org", "invited", ""), ("ghost@example.org", "invited", ""),
        ("alice", "already_invited", ""),
    ]
    again = invitations.roster_import(ines, course, "nobody\nalice\n")
    assert {r.status for r in again.rows} == {"already_invited"}
    assert students(course) == set()


def test_rows_that_are_not_addresses_are_listed_and_nobody_is_invited(alice):
    ines = instructor()
    course = make_course(ines)
    long_mail = "a" * 250 + "@example.org"  # passes validate_email, beyond the column
    report = invitations.roster_import(
        ines, course, "alice\nno body\nx@\n" + "a" * 151 + "\n" + long_mail + "\n"
    )
    assert not report.ok
    assert [(r.line, r.status) for r in report.invalid] == [
        (2, "invalid"), (3, "invalid"), (4, "invalid"), (5, "invalid")
    ]
    assert "not a username or an e-mail address" in report.invalid[0].error
    assert "not an e-mail address" in report.invalid[1].error
    assert invited(course) == set() and students(course) == set()


def test_an_email_shared_by_two_accounts_is_one_invitation(alice, bob):
    get_user_model().objects.filter(pk__in=[alice.pk, bob.pk]).update(email="same@example.org")
    ines = instructor()
    course = make_course(ines)
    report = invitations.roster_import(ines, course, "same@example.org\n")
    assert [r.status for r in report.rows] == ["invited"]
    assert invited(course) == {"same@example.org"} and students(course) == set()


def test_the_manage_page_invites_an_uploaded_roster_and_reports_bad_rows(client, alice, bob):
    from django.core.files.uploadedfile import SimpleUploadedFile

    ines = instructor()
    course = make_course(ines)
    client.force_login(ines)
    bad = SimpleUploadedFile("roster.csv", b"alice\nno body\n", content_type="text/csv")
    page = client.post(f"/courses/{course.pk}/roster", {"roster": bad}, follow=True)
    assert "Nobody invited" in page.content.decode() and "line 2: no body" in page.content.decode()
    assert invited(course) == set()
    good = SimpleUploadedFile("roster.csv", b"alice\nbob\nnobody\n", content_type="text/csv")
    page = client.post(f"/courses/{course.pk}/roster", {"roster": good}, follow=True).content
    assert "Invited 3 addresses" in page.decode()
    assert students(course) == set()
    # The manage page lists the invitations by address, none accepted.
    listed = page.decode().split('class="board invitations"')[1]
    assert listed.count("not accepted") == 3


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


def test_a_roster_csv_cannot_read_is_refused_with_a_message():
    ines = instructor()
    course = make_course(ines)
    with pytest.raises(services.CourseError, match="roster: not a CSV file"):
        invitations.roster_import(ines, course, "a" * 140_000)  # beyond csv's field size limit
    assert invited(course) == set()

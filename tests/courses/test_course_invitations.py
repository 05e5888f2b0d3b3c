"""Invitations (a roster invites; the student accepts or declines, on the page or through the
API) and the e-mail rule of the grades CSV and the manage page: an address is shown only when
the instructor's roster supplied it and the student accepted, or the student agreed to share it.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from course_cast import api, instructor, make_assignment, make_course, quick_user
from judge_cast import token_for

from judge_site.courses import invitations, services
from judge_site.courses.models import Invitation, Membership
from judge_site.staff.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def invited(alice, bob, problem) -> dict[str, Any]:
    alice.email = "alice@uni.example"
    alice.save()
    bob.email = "bob.private@mail.example"
    bob.save()
    ines = instructor()
    course = make_course(ines, "Kernels")
    make_assignment(course, [problem])
    invitations.roster_import(ines, course, "alice@uni.example\nbob\n")
    return {"ines": ines, "course": course}


def emails(client: Any, ines: Any, course: Any) -> dict[str, str]:
    client.force_login(ines)
    response = client.get(f"/api/v1/courses/{course.pk}/grades.csv")
    assert response.status_code == 200
    rows = csv.DictReader(io.StringIO(response.content.decode("utf-8")[1:]))
    return {r["username"]: r["email"] for r in rows}


def test_the_invited_student_accepts_on_the_courses_page(client, invited, alice):
    # Invited twice (by e-mail and by username): accepting one answers the course.
    invitations.roster_import(invited["ines"], invited["course"], "alice\n")
    client.force_login(alice)
    page = client.get("/courses/").content.decode()
    assert 'id="invitations"' in page and "Kernels" in page
    invitation = Invitation.objects.get(address="alice@uni.example")
    response = client.post(f"/courses/invitations/{invitation.pk}/accept")
    assert response.status_code == 302
    assert response["Location"] == f"/courses/{invited['course'].pk}/"
    membership = Membership.objects.get(course=invited["course"], user=alice)
    assert membership.role == "student" and membership.roster_email == "alice@uni.example"
    assert not membership.share_email
    invitation.refresh_from_db()
    assert invitation.status == "accepted" and invitation.answered_by == alice
    assert 'id="invitations"' not in client.get("/courses/").content.decode()
    assert AuditEntry.objects.filter(action="course.invitation_accept").count() == 1


def test_an_invitation_is_answered_only_by_its_addressee(client, invited, alice, bob):
    invitation = Invitation.objects.get(address="alice@uni.example")
    carol = quick_user("carol")
    for intruder in (bob, carol, invited["ines"]):
        token = token_for(intruder)
        client.force_login(intruder)
        assert invitation.pk not in [
            i["id"] for i in api(client, "GET", "/api/v1/courses/invitations").json()["invitations"]
        ]
        page = client.post(f"/courses/invitations/{invitation.pk}/accept", follow=True)
        assert "no such invitation" in page.content.decode()
        refused = api(client, "POST", f"/api/v1/courses/invitations/{invitation.pk}/accept",
                      token)
        assert refused.status_code == 404 and "no such invitation" in refused.json()["error"]
        declined = api(client, "POST", f"/api/v1/courses/invitations/{invitation.pk}/decline",
                       token)
        assert declined.status_code == 404
        client.logout()
    invitation.refresh_from_db()
    assert invitation.status == "pending"
    assert not Membership.objects.filter(course=invited["course"], role="student").exists()


def test_the_api_lists_accepts_and_declines(client, invited, alice, bob):
    alice_token, bob_token = token_for(alice), token_for(bob)
    mine = api(client, "GET", "/api/v1/courses/invitations", alice_token)
    assert mine.status_code == 200
    [entry] = mine.json()["invitations"]
    assert set(entry) == {"id", "course", "title", "invited_at"}
    assert entry["course"] == invited["course"].pk and entry["title"] == "Kernels"
    bad = api(client, "POST", f"/api/v1/courses/invitations/{entry['id']}/accept", alice_token,
              {"share_email": "yes"})
    assert bad.status_code == 400 and "share_email" in bad.json()["error"]
    accepted = api(client, "POST", f"/api/v1/courses/invitations/{entry['id']}/accept",
                   alice_token, {"share_email": True})
    assert accepted.status_code == 201
    assert accepted.json() == {"course": invited["course"].pk, "role": "student"}
    again = api(client, "POST", f"/api/v1/courses/invitations/{entry['id']}/accept", alice_token)
    assert again.status_code == 404  # answered already
    [bobs] = api(client, "GET", "/api/v1/courses/invitations", bob_token).json()["invitations"]
    declined = api(client, "POST", f"/api/v1/courses/invitations/{bobs['id']}/decline", bob_token)
    assert declined.status_code == 200
    assert declined.json() == {"id": bobs["id"], "status": "declined"}
    assert not Membership.objects.filter(course=invited["course"], user=bob).exists()
    assert api(client, "GET", "/api/v1/courses/invitations", bob_token).json() == {
        "invitations": []
    }
    for path in ("/api/v1/courses/invitations/0/accept",
                 f"/api/v1/courses/invitations/{10**30}/accept"):
        assert api(client, "POST", path, bob_token).status_code == 404
    assert api(client, "GET", "/api/v1/courses/invitations").status_code == 401


def test_a_declined_invitation_reads_like_an_unanswered_one(client, invited, bob):
    invitations.roster_import(invited["ines"], invited["course"], "nobody-has-this\n")
    invitation = Invitation.objects.get(address="bob")
    invitations.invitation_decline(bob, invitation.pk)
    client.force_login(invited["ines"])
    page = client.get(f"/courses/{invited['course'].pk}/manage").content.decode()
    table = page.split('class="board invitations"')[1].split("</table>")[0]
    rows = {r.split("<td>")[1].split("</td>")[0]: r for r in table.split("<tr>")[2:]}
    assert set(rows) == {"alice@uni.example", "bob", "nobody-has-this"}
    assert all(">not accepted<" in r for r in rows.values())
    assert "declined" not in page


def test_the_grades_csv_shows_an_email_only_as_the_student_allowed(
    client, invited, alice, bob, problem
):
    course, ines = invited["course"], invited["ines"]
    for invitation in Invitation.objects.all():
        user = alice if invitation.address.startswith("alice") else bob
        invitations.invitation_accept(user, invitation.pk)
    carol = quick_user("carol")
    carol.email = "carol@mail.example"
    carol.save()
    dave = quick_user("dave")
    dave.email = "dave@mail.example"
    dave.save()
    services.course_join(carol, course, course.join_code, share_email=True)
    services.course_join(dave, course, course.join_code)
    # alice: the roster's address (she accepted it); bob: invited by username, did not agree;
    # carol: agreed when joining; dave: joined by code, did not agree.
    assert emails(client, ines, course) == {
        "alice": "alice@uni.example", "bob": "", "carol": "carol@mail.example", "dave": "",
    }
    page = client.get(f"/courses/{course.pk}/manage").content.decode()
    assert "bob.private@mail.example" not in page and "dave@mail.example" not in page
    assert "carol@mail.example" in page and "alice@uni.example" in page
    # bob agrees on the course page; carol takes it back.
    client.force_login(bob)
    client.post(f"/courses/{course.pk}/email-sharing", {"share_email": "on"})
    client.force_login(carol)
    client.post(f"/courses/{course.pk}/email-sharing", {})
    found = emails(client, ines, course)
    assert (found["bob"], found["carol"]) == ("bob.private@mail.example", "")


def test_joining_by_code_asks_about_the_email_on_the_page_and_the_api(client, alice, bob):
    alice.email, bob.email = "a@mail.example", "b@mail.example"
    alice.save()
    bob.save()
    course = make_course(instructor(), "C")
    client.force_login(alice)
    client.post("/courses/join", {"join_code": course.join_code, "share_email": "on"})
    joined = api(client, "POST", f"/api/v1/courses/{course.pk}/join", token_for(bob),
                 {"join_code": course.join_code})
    assert joined.status_code == 201
    shares = dict(Membership.objects.filter(course=course, role="student")
                  .values_list("user__username", "share_email"))
    assert shares == {"alice": True, "bob": False}
    bad = api(client, "POST", f"/api/v1/courses/{course.pk}/join", token_for(quick_user("c")),
              {"join_code": course.join_code, "share_email": 1})
    assert bad.status_code == 400 and "share_email" in bad.json()["error"]


def test_the_roster_api_reports_every_row_with_a_status(client, invited, alice):
    course, ines = invited["course"], invited["ines"]
    token = token_for(ines)
    path = f"/api/v1/courses/{course.pk}/roster"
    response = api(client, "POST", path, token,
                   {"roster": "email\nalice@uni.example\nghost@x.example\n"})
    assert response.status_code == 200
    assert response.json() == {
        "invited": 1, "already_invited": 1,
        "rows": [
            {"line": 2, "value": "alice@uni.example", "status": "already_invited"},
            {"line": 3, "value": "ghost@x.example", "status": "invited"},
        ],
    }
    bad = api(client, "POST", path, token, {"roster": "fine\nnot an address\n"})
    assert bad.status_code == 400
    assert bad.json()["rows"] == [{"line": 2, "value": "not an address", "status": "invalid",
                                   "error": "not a username or an e-mail address"}]
    for body, message in ((["x"], "JSON object"), ({}, "roster: missing"),
                          ({"roster": "a\x00"}, "NUL"), ({"roster": "\n\n"}, "no usernames")):
        refused = api(client, "POST", path, token, body)
        assert refused.status_code == 400 and message in refused.json()["error"], body
    student = api(client, "POST", path, token_for(alice), {"roster": "bob"})
    assert student.status_code == 404  # alice is not (yet) a member
    assert not Invitation.objects.filter(address="fine").exists()

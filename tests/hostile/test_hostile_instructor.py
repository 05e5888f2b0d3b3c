"""Attack, as an instructor: a roster without consent (issue 36).

Mallory may create courses. She wants a student's code and e-mail address: she creates a course,
assigns the problems the victim worked on, imports a roster naming the victim by username and
by e-mail address, then tries every route an instructor reads submissions through, guesses
submission and invitation ids, answers the victim's invitation herself and makes the victim an
instructor of her course. The safe outcome: the roster report does not tell her that the victim
has an account, and she reads nothing: no submission, no row, no address, until the victim
accepts, and then only what the victim submits to her course's problems from that moment on.

No Docker: the attack is on the web's rules (Postgres through Django's test client).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone
from judge_cast import make_problem, token_for

from judge_site.courses.models import Invitation, Membership
from judge_site.submissions.models import Submission

pytestmark = pytest.mark.django_db

VICTIM_EMAIL = "victim.private@mail.example"


def _user(name: str, *, email: str = "", staff: bool = False) -> Any:
    user = get_user_model()(username=name, email=email, is_staff=staff)
    user.set_unusable_password()
    user.save()
    return user


def _submit(user: Any, problem: Any, verdict: str, days_ago: float = 0.0) -> Submission:
    sub = Submission.objects.create(
        user=user, problem=problem, code=f"# secret code of {user.username} ({verdict})\n",
        mode="submit", status="done", verdict=verdict,
    )
    Submission.objects.filter(pk=sub.pk).update(
        created_at=timezone.now() - timezone.timedelta(days=days_ago)
    )
    sub.refresh_from_db()
    return sub


def _call(client: Any, method: str, path: str, token: str, body: Any = None) -> Any:
    import json

    headers = {"HTTP_AUTHORIZATION": f"Token {token}"}
    if method == "GET":
        return client.get(path, **headers)
    return client.post(path, data=json.dumps(body or {}), content_type="application/json",
                       **headers)


def _everything_mallory_sees(client: Any, mallory: Any, token: str, course_id: int) -> str:
    """Every course page and download Mallory can open, concatenated."""
    client.force_login(mallory)
    seen = []
    for path in (f"/courses/{course_id}/manage", f"/courses/{course_id}/progress",
                 f"/courses/{course_id}/", f"/courses/{course_id}/leaderboard/48",
                 f"/courses/{course_id}/leaderboard/49"):
        seen.append(client.get(path).content.decode())
    grades = _call(client, "GET", f"/api/v1/courses/{course_id}/grades.csv", token)
    assert grades.status_code == 200
    seen.append(grades.content.decode("utf-8"))
    return "\n".join(seen)


def _readable(client: Any, mallory: Any, token: str, sub_id: int) -> bool:
    client.force_login(mallory)
    page = client.get(f"/submissions/{sub_id}/").status_code
    by_api = _call(client, "GET", f"/api/v1/submissions/{sub_id}", token).status_code
    assert page == by_api, (sub_id, page, by_api)
    return page == 200


def test_attack_as_an_instructor_roster_without_consent(client: Any) -> None:
    p48 = make_problem(48)
    p49 = make_problem(49, slug="attention")
    victim = _user("victim", email=VICTIM_EMAIL)
    old_work = [_submit(victim, p48, "AC", 10), _submit(victim, p49, "WA", 5)]
    mallory = _user("mallory", staff=True)
    token = token_for(mallory)

    # is_staff alone does not create a course; the permission does.
    refused = _call(client, "POST", "/api/v1/courses", token, {"title": "Trap"})
    assert refused.status_code == 403
    mallory.user_permissions.add(Permission.objects.get(codename="create_course"))
    created = _call(client, "POST", "/api/v1/courses", token, {"title": "Trap"})
    assert created.status_code == 201
    course_id = created.json()["id"]
    assigned = _call(client, "POST", f"/api/v1/courses/{course_id}/assignments", token, {
        "title": "All of it", "problems": [48, 49],
        "opens_at": "2020-01-01T00:00:00+00:00", "due_at": "2099-01-01T00:00:00+00:00",
    })
    assert assigned.status_code == 201

    # The roster: the victim by username and by e-mail, beside addresses nobody has.
    roster = "victim\nnobody-at-all\n" + VICTIM_EMAIL + "\nghost@mail.example\n"
    report = _call(client, "POST", f"/api/v1/courses/{course_id}/roster", token,
                   {"roster": roster})
    assert report.status_code == 200
    statuses = [(r["value"], r["status"]) for r in report.json()["rows"]]
    assert statuses == [("victim", "invited"), ("nobody-at-all", "invited"),
                        (VICTIM_EMAIL, "invited"), ("ghost@mail.example", "invited")]
    client.force_login(mallory)
    manage = client.get(f"/courses/{course_id}/manage").content.decode()
    listed = manage.split('class="board invitations"')[1].split("</table>")[0]
    assert listed.count(">not accepted<") == 4
    assert not Membership.objects.filter(course_id=course_id, user=victim).exists()

    # Nothing of the victim's: no submission by id (all of them guessed), no page, no row.
    for sub_id in Submission.objects.values_list("pk", flat=True):
        assert not _readable(client, mallory, token, sub_id), sub_id
    for number in (48, 49):
        student_page = client.get(f"/courses/{course_id}/students/{victim.pk}/problems/{number}")
        assert student_page.status_code == 404
    seen = _everything_mallory_sees(client, mallory, token, course_id)
    assert 'data-student="victim"' not in seen and "victim," not in seen
    assert "secret code" not in seen

    # She answers the victim's invitations herself, by every id there is: refused.
    for invitation_id in Invitation.objects.values_list("pk", flat=True):
        answer = _call(client, "POST", f"/api/v1/courses/invitations/{invitation_id}/accept",
                       token, {"share_email": True})
        assert answer.status_code == 404
        client.force_login(mallory)
        client.post(f"/courses/invitations/{invitation_id}/accept", {"share_email": "on"})
    assert not Invitation.objects.exclude(status="pending").exists()

    # She makes the victim an instructor of her course: an instructor's work is not read.
    client.force_login(mallory)
    client.post(f"/courses/{course_id}/instructors", {"username": "victim"})
    assert Membership.objects.get(course_id=course_id, user=victim).role == "instructor"
    assert not any(_readable(client, mallory, token, s.pk) for s in old_work)
    Membership.objects.filter(course_id=course_id, user=victim).delete()

    # The victim accepts the username invitation without sharing the address: from now on,
    # her course's problems only; the old work and the address stay hers.
    victim_token = token_for(victim)
    mine = _call(client, "GET", "/api/v1/courses/invitations", victim_token).json()
    by_username = next(i for i in Invitation.objects.filter(address="victim"))
    assert by_username.pk in [i["id"] for i in mine["invitations"]]
    accepted = _call(client, "POST", f"/api/v1/courses/invitations/{by_username.pk}/accept",
                     victim_token)
    assert accepted.status_code == 201
    new_work = _submit(victim, p48, "AC")
    elsewhere = _submit(victim, make_problem(50, slug="elsewhere"), "AC")
    assert _readable(client, mallory, token, new_work.pk)
    assert not any(_readable(client, mallory, token, s.pk) for s in [*old_work, elsewhere])
    client.force_login(mallory)
    manage = client.get(f"/courses/{course_id}/manage").content.decode()
    students = manage.split('class="board students"')[1].split("</table>")[0]
    assert "<td>victim</td><td></td>" in students  # the address column stays empty
    grades = list(csv.DictReader(io.StringIO(
        _call(client, "GET", f"/api/v1/courses/{course_id}/grades.csv", token)
        .content.decode("utf-8")[1:]
    )))
    assert [(r["username"], r["email"]) for r in grades] == [("victim", "")]

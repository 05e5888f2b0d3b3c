"""The mail that tells a student a rejudge changed their verdicts, against a real SMTP server:
one mail per student per rejudge listing every changed Submit; none for an unchanged verdict,
a Run, a student who opted out or one without an address; a mail server that refuses is
recorded and logged, and the rejudge's verdicts land all the same."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, TestCase
from judge_cast import make_user
from mail_server import Inbox, body_of, free_port

from judge_site.accounts.models import EmailProfile, RejudgeNotice
from judge_site.staff.models import RejudgeItem
from judge_site.staff.services.rejudge import rejudge_item_judge, rejudge_start
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db


def _done(user: Any, problem: Any, code: str, verdict: str, mode: str = "submit") -> Submission:
    return Submission.objects.create(
        user=user, problem=problem, mode=mode, code=code, status=Status.DONE, verdict=verdict,
        problem_version="v-old",
    )


def _with_email(user: Any) -> Any:
    user.email = f"{user.username}@example.org"
    user.save(update_fields=["email"])
    return user


def _rejudge(actor: Any, submissions: list[Submission]) -> Any:
    """Start a rejudge and judge its items here, running the on-commit hooks (the notices)."""
    rejudge = rejudge_start(actor, submissions, "test")  # its own enqueues are never committed
    with TestCase.captureOnCommitCallbacks(execute=True):
        for item in RejudgeItem.objects.filter(rejudge=rejudge):
            rejudge_item_judge(item.pk)
    return rejudge


def test_one_mail_per_student_lists_the_changed_submits_only(
    alice: Any, bob: Any, charlie: Any, problem: Any, fake_engine: Any, inbox: Inbox,
    mail_inline: list[Any], settings: Any,
) -> None:
    settings.JUDGE_SITE_URL = "https://judge.example.org"
    _with_email(alice), _with_email(bob)
    dora = _with_email(make_user("dora"))
    EmailProfile.objects.create(user=dora, rejudge_notices=False)
    erin = make_user("erin")  # no address
    subs = [
        lucky := _done(alice, problem, "x = 1  # WRONG", "AC"),  # AC -> WA
        fixed := _done(alice, problem, "x = 2", "WA"),  # WA -> AC
        _done(alice, problem, "x = 3", "AC"),  # unchanged
        _done(alice, problem, "y = 1  # WRONG", "AC", mode="run"),  # a Run: never notified
        _done(bob, problem, "x = 4", "AC"),  # unchanged: no mail for bob
        _done(dora, problem, "x = 5", "WA"),  # changed, but dora opted out
        _done(erin, problem, "x = 6", "WA"),  # changed, no address
    ]
    rejudge = _rejudge(charlie, subs)
    (message,) = inbox.wait_for(1)
    assert message["To"] == "alice@example.org"
    assert "the verdicts of 2 of your submissions" in message["Subject"]
    text = body_of(message)
    assert f"submission {lucky.pk}, problem 48" in text and "Accepted -> Wrong answer" in text
    assert f"submission {fixed.pk}, problem 48" in text and "Wrong answer -> Accepted" in text
    assert f"https://judge.example.org/submissions/{lucky.pk}/" in text
    assert "https://judge.example.org/accounts/email/" in text  # where to opt out
    assert text.count("submission ") == 2
    notice = RejudgeNotice.objects.get()
    assert notice.user == alice and notice.rejudge_id == rejudge.pk and notice.sent_at
    assert sorted(notice.submissions) == sorted([lucky.pk, fixed.pk])
    assert [name for name, _ in mail_inline] == ["accounts.send_rejudge_notice"] * 3  # a, d, e
    # A redelivered task sends nothing twice.
    from judge_site.accounts.notices import rejudge_notice_send

    assert rejudge_notice_send(rejudge.pk, alice.pk, [{"submission": lucky.pk}]).startswith(
        "skipped: already sent"
    )
    assert len(inbox.messages) == 1


def test_no_mail_when_no_verdict_changed_or_mail_is_off(
    alice: Any, charlie: Any, problem: Any, fake_engine: Any, inbox: Inbox,
    mail_inline: list[Any], settings: Any,
) -> None:
    _with_email(alice)
    _rejudge(charlie, [_done(alice, problem, "x = 1", "AC")])
    settings.EMAIL_HOST = ""
    _rejudge(charlie, [_done(alice, problem, "x = 2", "WA")])  # changed, but no mail server
    assert mail_inline == [] and inbox.messages == []
    assert not RejudgeNotice.objects.exists()


def test_a_refusing_mail_server_is_logged_and_never_fails_the_rejudge(
    alice: Any, charlie: Any, problem: Any, fake_engine: Any, inbox: Inbox,
    mail_inline: list[Any], settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from judge_site.accounts import notices

    logged: list[str] = []
    monkeypatch.setattr(notices.logger, "exception", lambda msg, *a: logged.append(msg % a))
    _with_email(alice)
    settings.EMAIL_PORT = free_port()  # nothing listens there
    sub = _done(alice, problem, "x = 1", "WA")
    rejudge = _rejudge(charlie, [sub])
    sub.refresh_from_db()
    assert sub.verdict == "AC"  # the new verdict landed
    rejudge.refresh_from_db()
    assert rejudge.finished_at is not None
    notice = RejudgeNotice.objects.get()
    assert notice.sent_at is None and "ConnectionRefusedError" in notice.error
    assert logged and f"the notice to user {alice.pk} was not sent" in logged[0]


def test_the_email_page_sets_the_address_and_the_opt_out(alice: Any, client: Client) -> None:
    assert client.get("/accounts/email/").status_code == 302  # log in first
    client.force_login(alice)
    page = client.get("/accounts/email/")
    assert page.status_code == 200 and b'name="rejudge_notices"' in page.content
    assert b"checked" in page.content  # notices are on by default
    assert b"This site sends no e-mail yet" in page.content  # no EMAIL_HOST in tests
    bad = client.post("/accounts/email/", {"email": "not an address"})
    assert bad.status_code == 200 and b'class="errors"' in bad.content
    saved = client.post("/accounts/email/", {"email": "alice@example.org"})  # box unticked
    assert saved.status_code == 302
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"
    assert EmailProfile.objects.get(user=alice).rejudge_notices is False
    assert b"Your e-mail settings were saved" in client.get("/accounts/email/").content

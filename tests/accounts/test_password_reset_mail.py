"""Password reset by e-mail against a real SMTP server (aiosmtpd, tests/mail_server.py): the
mail arrives and its link sets a new password; the 11th request for one address within the
window is throttled (and per client address); known and unknown addresses get the same answer
after the same work; with no EMAIL_HOST the page says the site sends no mail."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from judge_cast import ACCOUNT_PASSWORD as PASSWORD
from mail_server import Inbox, body_of, link_in

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-new-staple-for-42"


def logs_in(username: str, password: str) -> bool:
    response = Client().post("/accounts/login/", {"username": username, "password": password})
    return response.status_code == 302


def ask(client: Client, email: str, address: str = "10.1.1.1") -> Any:
    return client.post("/accounts/password_reset/", {"email": email}, REMOTE_ADDR=address)


def test_the_mailed_link_sets_a_new_password(
    client: Client, mailed_alice: Any, inbox: Inbox, mail_inline: list[Any]
) -> None:
    assert b"Forgot your password?" in client.get("/accounts/login/").content
    response = ask(client, "  ALICE@example.org ")  # any case, spaces around
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password_reset/done/"
    assert b"If an account uses that address" in client.get(response["Location"]).content
    (message,) = inbox.wait_for(1)
    assert message["To"] == "alice@example.org"
    assert "alice" in message["Subject"] and '"alice"' in body_of(message)
    link = link_in(message)
    assert link.startswith("/accounts/reset/")
    form = client.get(link, follow=True)  # Django moves the token into the session
    assert form.status_code == 200 and b'name="new_password1"' in form.content
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert logs_in("alice", NEW_PASSWORD) and not logs_in("alice", PASSWORD)
    again = Client().get(link, follow=True)  # a link works once
    assert b"This link is not valid" in again.content


def test_the_eleventh_request_for_one_address_is_throttled(
    client: Client, mailed_alice: Any, inbox: Inbox, mail_inline: list[Any], settings: Any
) -> None:
    for n in range(10):  # each from another client: only the address's counter is met
        assert ask(client, "alice@example.org", f"10.2.0.{n}").status_code == 302
    assert len(inbox.wait_for(10)) == 10
    refused = ask(client, "Alice@Example.org", "10.2.0.99")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 3600
    assert b"Too many requests for this address" in refused.content
    assert b"try again" in refused.content
    assert len(mail_inline) == 10  # the refused one queued nothing
    # An address without an account meets the same counter at the same count.
    for n in range(10):
        assert ask(client, "nobody@example.org", f"10.3.0.{n}").status_code == 302
    assert ask(client, "nobody@example.org", "10.3.0.99").status_code == 429
    # Per client address, whatever the addresses asked for.
    settings.JUDGE_RESETS_PER_CLIENT = 3
    for n in range(3):
        assert ask(client, f"someone{n}@example.org", "10.4.0.1").status_code == 302
    refused = ask(client, "someone9@example.org", "10.4.0.1")
    assert refused.status_code == 429 and b"your network address" in refused.content
    assert len(inbox.messages) == 10


def test_known_and_unknown_addresses_get_the_same_answer_after_the_same_work(
    mailed_alice: Any, monkeypatch: pytest.MonkeyPatch, inbox: Inbox
) -> None:
    from judge_site.accounts import mail

    queued: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(mail, "_enqueue", lambda name, args: queued.append((name, args)))
    answers = []
    for email in ("alice@example.org", "nobody@example.org"):
        client = Client()
        client.get("/accounts/password_reset/")
        with CaptureQueriesContext(connection) as queries:
            response = ask(client, email)
        page = client.get(response["Location"])
        answers.append((response.status_code, response["Location"], len(queries), page.content))
    assert answers[0] == answers[1]
    assert [name for name, _ in queued] == ["accounts.send_password_reset"] * 2
    assert [args[0] for _, args in queued] == ["alice@example.org", "nobody@example.org"]
    # The worker, not the page, decides who gets mail: only the account's address.
    from judge_site.accounts.reset import reset_mail_send

    for _, args in queued:
        reset_mail_send(*args)
    (message,) = inbox.wait_for(1)
    assert message["To"] == "alice@example.org"


def test_bad_input_gets_the_form_back_with_a_reason(client: Client, inbox: Inbox) -> None:
    for email in ("not an address", "", "a\x00b@example.org", "x" * 300 + "@example.org"):
        response = ask(client, email)
        assert response.status_code == 200, email
        assert b'class="errors"' in response.content
    assert client.get("/accounts/reset/bogus/token-x/").status_code == 200  # "not valid" page
    assert b"This link is not valid" in client.get("/accounts/reset/MQ/bad-token/").content


def test_with_no_mail_server_the_page_says_so(
    client: Client, mailed_alice: Any, settings: Any, mail_inline: list[Any]
) -> None:
    settings.EMAIL_HOST = ""
    page = client.get("/accounts/password_reset/")
    assert page.status_code == 200 and b"This site sends no e-mail" in page.content
    assert b"Ask your instructor or an administrator" in page.content
    assert ask(client, "alice@example.org").status_code == 404
    assert mail_inline == []

"""Sign-up's e-mail address: optional by default; with JUDGE_EMAIL_VERIFY required and
confirmed by a signed link mailed to it (a real SMTP server), and until then no password reset
link goes to it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from mail_server import Inbox, link_in

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-41"
User = get_user_model()


def sign_up(client: Client, name: str, email: str) -> Any:
    return client.post(
        "/accounts/signup/",
        {"username": name, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def test_the_address_is_optional_by_default(client: Client) -> None:
    page = client.get("/accounts/signup/")
    assert b"E-mail address (optional)" in page.content
    assert sign_up(client, "dora", "").status_code == 302
    assert sign_up(Client(), "erin", "erin@example.org").status_code == 302
    assert User.objects.get(username="erin").email == "erin@example.org"
    assert sign_up(Client(), "fay", "no address").status_code == 200  # the form, with why


def test_a_signed_link_confirms_the_address_before_any_reset_mail(
    client: Client, inbox: Inbox, mail_inline: list[Any], settings: Any
) -> None:
    settings.JUDGE_EMAIL_VERIFY = True
    missing = sign_up(client, "dora", "")
    assert missing.status_code == 200 and b"This field is required" in missing.content
    assert sign_up(client, "dora", "dora@example.org").status_code == 302
    (verify,) = inbox.wait_for(1)
    assert verify["To"] == "dora@example.org" and "Confirm" in verify["Subject"]
    link = link_in(verify)
    assert b"is not confirmed yet" in client.get("/accounts/email/").content
    # Unconfirmed: the reset page answers as always, and no mail goes out.
    assert Client().post("/accounts/password_reset/", {"email": "dora@example.org"}).status_code == 302
    assert [name for name, _ in mail_inline] == [
        "accounts.send_verification", "accounts.send_password_reset"
    ]
    assert len(inbox.messages) == 1
    tampered = Client().get(link[:-4] + "xyz/")
    assert tampered.status_code == 400 and b"This link is not valid" in tampered.content
    opened = Client().get(link)
    assert opened.status_code == 200 and b"dora@example.org is confirmed" in opened.content
    assert b"is confirmed" in client.get("/accounts/email/").content
    Client().post("/accounts/password_reset/", {"email": "dora@example.org"})
    assert "password" in inbox.wait_for(2)[1]["Subject"]
    # A new address needs a new link; the old link no longer confirms anything.
    client.post("/accounts/email/", {"email": "dora@elsewhere.org", "rejudge_notices": "on"})
    new_link = link_in(inbox.wait_for(3)[2])
    assert new_link != link
    assert b"address changed" in Client().get(link).content
    assert Client().get(new_link).status_code == 200
    # "Send the link again" mails the current address another link.
    client.post("/accounts/email/", {"email": "dora@third.org", "rejudge_notices": "on"})
    resent = client.post("/accounts/email/", {"action": "resend"}, follow=True)
    assert b"A new link was sent to dora@third.org" in resent.content
    assert [m["To"] for m in inbox.wait_for(5)[3:]] == ["dora@third.org"] * 2

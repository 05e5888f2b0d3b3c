"""A forgotten password in a real browser: from the log-in page's "Forgot your password?" to
the reset form, the link read from the mail a real SMTP server received (aiosmtpd, started by
the test; tests/mail_server.py), the new password set, and a log-in with it. Local backend: no
worker judges anything; the mail task runs in the live server's process (Celery's apply)."""

from __future__ import annotations

from typing import Any

import mail_server
import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

inbox = mail_server.inbox  # fixtures, by their names
mail_inline = mail_server.mail_inline

NEW_PASSWORD = "a-new-staple-for-42"


def test_a_student_resets_a_forgotten_password_by_the_mailed_link(
    page: Any, inbox: mail_server.Inbox, mail_inline: list[Any]
) -> None:
    get_user_model().objects.create_user("alice", "alice@example.org", "forgotten-pass-41")
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.fill("#id_email", "alice@example.org")
    page.get_by_role("button", name="Mail me a link").click()
    page.wait_for_selector("#reset-sent")
    (message,) = inbox.wait_for(1)
    assert message["To"] == "alice@example.org"
    page.goto(mail_server.link_in(message))
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Set my password").click()
    page.wait_for_selector("#reset-complete")
    page.get_by_role("link", name="Log in").last.click()
    page.fill("#id_username", "alice")
    page.fill("#id_password", NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector(".nav-user .username")
    assert page.inner_text(".nav-user .username") == "alice"

"""A real SMTP server for the tests (aiosmtpd on 127.0.0.1, a free port) and the fixtures that
point Django's SMTP backend at it and run the accounts' mail tasks in the test's process.

tests/conftest.py loads this module as a plugin: ``inbox`` and ``mail_inline`` are fixtures of
every test; ``inbox`` yields an Inbox whose ``wait_for(n)`` returns the first n messages received.
"""

from __future__ import annotations

import email
import re
import socket
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

import pytest
from aiosmtpd.controller import Controller


class Inbox:
    """aiosmtpd's handler: keeps every message it is given, parsed."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._changed = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=default_policy)
        with self._changed:
            self.messages.append(message)  # type: ignore[arg-type]
            self._changed.notify_all()
        return "250 Message accepted for delivery"

    def wait_for(self, count: int, timeout_s: float = 20.0) -> list[EmailMessage]:
        """The first ``count`` messages, once that many arrived (fails after ``timeout_s``)."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.messages)} of {count} mails arrived"
                self._changed.wait(left)
            return list(self.messages[:count])


def body_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def link_in(message: EmailMessage) -> str:
    """The path of the first http(s) link in the mail's text."""
    found = re.search(r"https?://[^/\s]+(/\S*)", body_of(message))
    assert found, body_of(message)
    return found.group(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def inbox(settings: Any) -> Iterator[Inbox]:
    """A running SMTP server; the site's mail goes to it (Django's SMTP backend, plain SMTP)."""
    handler = Inbox()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.DEFAULT_FROM_EMAIL = "Tensor Judge <judge@test.invalid>"
    try:
        yield handler
    finally:
        controller.stop()


@pytest.fixture
def mail_inline(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """The accounts' mail tasks run at once in this process, through Celery's own ``apply``
    (what a worker would run); returns the (task, args) list in the order queued."""
    from judge_site.accounts import mail
    from judge_site.celery import app

    queued: list[tuple[str, tuple[Any, ...]]] = []

    def run(name: str, args: tuple[Any, ...]) -> None:
        queued.append((name, args))
        app.loader.import_default_modules()
        app.tasks[name].apply(args=args)

    monkeypatch.setattr(mail, "_enqueue", run)
    return queued

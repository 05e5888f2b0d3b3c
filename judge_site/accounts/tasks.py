"""Accounts' Celery tasks (mail, on JUDGE_MAINTENANCE_QUEUE): thin wrappers around the services.
A mail server that refuses is retried a few times, minutes apart; each failure is logged (and a
rejudge notice records it on its row)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from judge_site.accounts.notices import rejudge_notice_send
from judge_site.accounts.reset import reset_mail_send
from judge_site.accounts.verification import verification_mail_send

_RETRY: dict[str, Any] = {
    "acks_late": True, "autoretry_for": (OSError,), "max_retries": 4, "retry_backoff": 60,
}


@shared_task(name="accounts.send_password_reset", **_RETRY)
def send_password_reset(email: str, domain: str, use_https: bool) -> None:
    reset_mail_send(str(email), str(domain), bool(use_https))


@shared_task(name="accounts.send_verification", **_RETRY)
def send_verification(user_id: int, domain: str, use_https: bool) -> bool:
    return verification_mail_send(int(user_id), str(domain), bool(use_https))


@shared_task(name="accounts.send_rejudge_notice", **_RETRY)
def send_rejudge_notice(rejudge_id: int, user_id: int, changes: list[dict[str, Any]]) -> str:
    return rejudge_notice_send(int(rejudge_id), int(user_id), list(changes))

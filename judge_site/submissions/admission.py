"""What a new submission must pass beyond its own fields: the rate per user and minute and the
caps on judgings waiting or running (per user, per network address across accounts); the error
type of a refused submission (the API answers ``"<field>: <message>"``)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.http import JsonResponse
from django.utils import timezone

from judge_site.core.api import ApiError, error
from judge_site.submissions.models import Status, Submission


class SubmissionError(ApiError):
    """Bad input for a submission; ``field`` names what is wrong, the message says why (the
    API answers ``"<field>: <message>"``)."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(message, status)
        self.field = field

    def response(self) -> JsonResponse:
        return error(f"{self.field}: {self.message}", self.status)


def check_rate_and_caps(user_id: int, address: str | None) -> None:
    """Refuse a judging beyond JUDGE_RATE_LIMIT_PER_MINUTE, or beyond the caps on judgings queued
    or running (0: no cap). Inside the transaction that holds the user's row lock."""
    limit = settings.JUDGE_RATE_LIMIT_PER_MINUTE
    since = timezone.now() - timedelta(seconds=60)
    recent = Submission.objects.filter(user_id=user_id, created_at__gte=since).count()
    if recent >= limit:
        raise SubmissionError(
            "rate",
            f"too many runs: at most {limit} runs and submissions per minute; "
            "wait a minute and try again",
            status=429,
        )
    in_flight = Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING])
    per_user = settings.JUDGE_MAX_QUEUED_PER_USER
    if per_user and in_flight.filter(user_id=user_id).count() >= per_user:
        raise SubmissionError(
            "rate",
            f"you already have {per_user} judgings waiting or running; "
            "wait for one to finish and try again",
            status=429,
        )
    per_address = settings.JUDGE_MAX_QUEUED_PER_ADDRESS
    if per_address and address and in_flight.filter(client_ip=address).count() >= per_address:
        raise SubmissionError(
            "rate",
            f"{per_address} judgings sent from your network address are waiting or running; "
            "wait for them to finish and try again",
            status=429,
        )

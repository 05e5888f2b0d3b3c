"""Submissions and their judging state.

State changes are conditional UPDATEs in services.py (queued -> running -> done), guarded by
``attempt_token`` so a redelivered task can never judge twice or overwrite a newer result.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models

from judge_site.catalog.models import Problem
from sandbox.contracts import JudgeResult


class Status(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"


class Mode(models.TextChoices):
    RUN = "run"
    SUBMIT = "submit"


class VerdictChoice(models.TextChoices):
    AC = "AC", "Accepted"
    WA = "WA", "Wrong answer"
    TLE = "TLE", "Time limit exceeded"
    MLE = "MLE", "Memory limit exceeded"
    OLE = "OLE", "Output limit exceeded"
    RE = "RE", "Runtime error"
    CE = "CE", "Compilation error"
    IE = "IE", "Internal error"


class Submission(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    mode = models.CharField(max_length=6, choices=Mode.choices, default=Mode.SUBMIT)
    code = models.TextField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=3, choices=VerdictChoice.choices, blank=True)
    message = models.TextField(blank=True)
    # Per-test results as the engine reports them (TestResult.to_json()), appended live.
    tests = models.JSONField(default=list, blank=True)
    benchmark = models.JSONField(null=True, blank=True)
    environment = models.JSONField(default=dict, blank=True)
    problem_version = models.CharField(max_length=64, blank=True)
    attempt_token = models.UUIDField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Liveness (services.submission_reap_stuck): a judging worker refreshes heartbeat_at every
    # few seconds while it judges, so a dead worker is noticed in seconds, not at the hard time
    # limit; queued_at is when the judging was last sent to the broker (None: at created_at).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    # The Celery node ("cpu@host") that claimed the running judging: the same worker, restarted
    # after dying mid-judging, gives it back at once instead of waiting for the heartbeat.
    worker = models.CharField(max_length=200, blank=True)
    # The address it was sent from: queued judgings are capped per address across accounts.
    client_ip = models.GenericIPAddressField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["user", "problem", "-created_at"]),
            models.Index(fields=["status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem_id} {self.status} {self.verdict}"

    @staticmethod
    def new_token() -> uuid.UUID:
        return uuid.uuid4()

    def judge_result(self) -> JudgeResult | None:
        """The engine's result as stored, read back typed; None while not judged."""
        if self.status != Status.DONE or not self.verdict:
            return None
        return JudgeResult.from_json({
            "verdict": self.verdict, "tests": self.tests, "benchmark": self.benchmark,
            "environment": self.environment, "message": self.message,
            "problem_version": self.problem_version,
        })


def fields_from_result(result: JudgeResult, fallback_version: str = "") -> dict[str, Any]:
    """The Submission fields that store the engine's ``result`` (its to_json, once): verdict,
    tests, benchmark, environment, message, problem_version."""
    data = result.to_json()
    verdict = str(result.verdict)
    return {
        "verdict": verdict if verdict in VerdictChoice.values else VerdictChoice.IE,
        "tests": data["tests"],
        "benchmark": data["benchmark"],
        "environment": data["environment"] or {},
        "message": data["message"],
        "problem_version": data["problem_version"] or fallback_version,
    }

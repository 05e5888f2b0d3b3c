"""A similarity run over one assignment and the pairs it found (docs/courses.md, "Similarity").

A run compares, per problem of the assignment, every two students' latest accepted Submit
(selectors.assignment_inputs); pairs at or above its threshold are kept, the others are not.
Its state changes are conditional UPDATEs in services.py (queued -> running -> done | failed).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judge_site.catalog.models import Problem
from judge_site.courses.models import Assignment
from judge_site.submissions.models import Submission


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class SimilarityRun(models.Model):
    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="similarity_runs"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    threshold = models.FloatField()
    status = models.CharField(max_length=8, choices=RunStatus.choices, default=RunStatus.QUEUED)
    # Progress: steps done of total (a step per student's code, a step per problem compared).
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    documents = models.PositiveIntegerField(default=0)
    pairs_scored = models.PositiveIntegerField(default=0)
    # Pairs at or above the threshold; the MAX_STORED highest of them are stored.
    pairs_found = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    # Problem number (as a string: JSON keys) -> the fingerprints found in more than half of the
    # class's code, left out of every score; the pair page leaves them unmarked too.
    boilerplate = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["assignment", "-created_at"])]

    def __str__(self) -> str:
        return f"similarity of {self.assignment_id} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == RunStatus.DONE:
            return 100
        return int(100 * self.done / self.total) if self.total else 0

    @property
    def finished(self) -> bool:
        return self.status in (RunStatus.DONE, RunStatus.FAILED)


class SimilarityPair(models.Model):
    """Two students' code for one problem, ``a`` the one whose username sorts first."""

    # A run keeps this many of its highest pairs (a threshold of 0 over 200 students would
    # otherwise store some 100,000 rows nobody reads).
    MAX_STORED = 2000

    run = models.ForeignKey(SimilarityRun, on_delete=models.CASCADE, related_name="pairs")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    a_submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    b_submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()

    class Meta:
        ordering = ["run_id", "-score", "id"]

    def __str__(self) -> str:
        return f"{self.a_submission_id} ~ {self.b_submission_id}: {self.score:.2f}"

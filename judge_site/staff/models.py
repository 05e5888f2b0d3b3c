"""What staff work leaves behind: uploaded package versions and their check, rejudges with the
verdicts they changed, and the audit log of every staff action.

State changes live in judge_site/staff/services/ (conditional UPDATEs where workers race).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judge_site.core.constraints import one_per
from judge_site.submissions.models import Submission


class CheckStatus(models.TextChoices):
    PENDING = "pending"  # uploaded, waiting for a worker
    RUNNING = "running"  # a worker is judging the package's own files
    PASSED = "passed"  # may be made the problem's current version and published
    FAILED = "failed"  # never published; the report says why


class ProblemVersion(models.Model):
    """One uploaded package of problem ``problem_number`` (v1, v2, ...), kept in its own folder
    under JUDGE_PACKAGES_DIR. A submission records the content hash (``content_hash``) of the
    package that judged it; this row maps that hash back to an upload."""

    problem_number = models.PositiveIntegerField(db_index=True)
    ordinal = models.PositiveIntegerField()
    slug = models.CharField(max_length=100)
    title = models.CharField(max_length=200)
    content_hash = models.CharField(max_length=64, db_index=True)
    package_dir = models.CharField(max_length=500)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    check_status = models.CharField(
        max_length=8, choices=CheckStatus.choices, default=CheckStatus.PENDING
    )
    # One entry per check item as it finishes: name, ok, detail, seconds, expected, actual, advice.
    check_items = models.JSONField(default=list, blank=True)
    check_message = models.TextField(blank=True)
    check_started_at = models.DateTimeField(null=True, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    activated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = one_per("one_ordinal_per_problem", "problem_number", "ordinal")

    def __str__(self) -> str:
        return f"problem {self.problem_number} v{self.ordinal} ({self.check_status})"

    @property
    def label(self) -> str:
        return f"v{self.ordinal}"


class RejudgeStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"  # the engine failed; the submission kept its verdict


class Rejudge(models.Model):
    """Submissions judged again (on the low-priority ``rejudge`` queue) after a package change."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    scope = models.CharField(max_length=200)  # "submission 12", "problem 48 (accepted only)"
    finished_at = models.DateTimeField(null=True, blank=True)
    # False: each submission is judged on the inputs of its last judging (its secret seed), so
    # the before/after table shows what the new version changed, not new random inputs.
    fresh_seed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"rejudge #{self.pk}: {self.scope}"


class RejudgeItem(models.Model):
    rejudge = models.ForeignKey(Rejudge, on_delete=models.CASCADE, related_name="items")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=8, choices=RejudgeStatus.choices, default=RejudgeStatus.PENDING
    )
    verdict_before = models.CharField(max_length=3, blank=True)
    verdict_after = models.CharField(max_length=3, blank=True)
    version_before = models.CharField(max_length=64, blank=True)
    version_after = models.CharField(max_length=64, blank=True)
    message = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["submission_id"]

    def __str__(self) -> str:
        return f"{self.submission_id}: {self.verdict_before} -> {self.verdict_after or '?'}"

    @property
    def changed(self) -> bool:
        return self.status == RejudgeStatus.DONE and self.verdict_after != self.verdict_before


class AuditEntry(models.Model):
    """Who did what, when: every staff action that changes the judge (written by services)."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)  # kept if the user is deleted
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=40, db_index=True)  # "problem.publish", ...
    target = models.CharField(max_length=200, blank=True)  # "problem 48", "rejudge 3"
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name or '-'} {self.action} {self.target}"


class StaffCapability(models.Model):
    """No table: the holder of the staff pages' permissions, one per capability. Which page
    needs which, and the groups that bundle them, are in judge_site/core/roles.py."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [
            ("upload_package", "Upload package versions and make one a problem's current version"),
            ("publish_problem", "Publish and unpublish problems"),
            ("rejudge", "Start and follow rejudges"),
            ("read_submissions", "Read students' code and hidden-test details"),
            ("view_metrics", "Read the operations figures on /metrics and the dashboard"),
        ]

    def __str__(self) -> str:
        return "staff capabilities"

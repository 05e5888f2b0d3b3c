"""What the site adds to django-lti's models (lti_tool: registrations, deployments, platform
users, contexts, resource links): which of our courses an LMS course is, which assignment a
link in it opens, and the grade pushes owed to the platform.

A platform user's account is ``lti_tool.LtiUser.auth_user`` (one per registration and ``sub``,
created on the first launch; never matched to an existing account by e-mail)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judge_site.core.constraints import one_per
from judge_site.courses.models import Assignment, Course


class CourseLink(models.Model):
    """An LMS course (a platform's context) is one of our courses. Staff make it in the admin;
    launches from an unlinked context get a page saying so."""

    context = models.OneToOneField(
        "lti_tool.LtiContext", on_delete=models.CASCADE, related_name="course_link"
    )
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_links")
    created_at = models.DateTimeField(auto_now_add=True)
    # The last roster read through the platform's Names and Role service (NRPS).
    roster_synced_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.context} -> {self.course}"


class AssignmentLink(models.Model):
    """A link placed in the LMS course (deep linking, or a custom parameter ``assignment_id``)
    opens one assignment; its grades go to the platform's line item ``lineitem_url`` (AGS)."""

    resource_link = models.OneToOneField(
        "lti_tool.LtiResourceLink", on_delete=models.CASCADE, related_name="assignment_link"
    )
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="lti_links")
    lineitem_url = models.URLField(max_length=1000, blank=True)
    can_publish_scores = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.resource_link} -> {self.assignment}"


class PushState(models.TextChoices):
    PENDING = "pending"
    SENT = "sent"


class GradePush(models.Model):
    """The score owed to the platform for one student on one link: one row per (link, user),
    the latest score overwriting it (``version`` counts the changes). A row is pending until a
    send of its current version succeeded; the periodic sweep resends pending rows, so a push
    survives a worker or broker restart, and a send that lost the race to a newer score
    leaves the row pending for the newer one."""

    link = models.ForeignKey(AssignmentLink, on_delete=models.CASCADE, related_name="pushes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score_given = models.FloatField()
    score_maximum = models.FloatField()
    state = models.CharField(max_length=10, choices=PushState.choices, default=PushState.PENDING)
    version = models.PositiveIntegerField(default=1)
    # When this score was computed: the AGS timestamp, so the platform keeps the newest.
    scored_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = one_per("one_grade_push_per_link_user", "link", "user")
        indexes = [models.Index(fields=["state", "scored_at"])]

    def __str__(self) -> str:
        return f"{self.user} {self.score_given:g}/{self.score_maximum:g} ({self.state})"

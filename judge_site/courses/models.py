"""Courses: a class with instructors and students, its assignments (problems with deadlines),
and per-student extensions. Credit is never stored: it is computed from the submissions when
read (judge_site/courses/grading.py), so a rejudge that changes a verdict changes the credit.

A course sees only what its students gave it (docs/courses.md, "What an instructor sees"): a
student is a member because they joined with the code or accepted an invitation (a roster import
only invites); the course reads their submissions to its problems made at or after
``Membership.joined_at``, and their e-mail only as ``Membership.email_for_instructors`` says.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from judge_site.catalog.models import Problem
from judge_site.core.choices import ExamKind, InvitationStatus, Role
from judge_site.core.constraints import one_per

# No 0/O/1/I/L: a code read aloud in a lecture or copied from a slide survives.
JOIN_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
JOIN_CODE_LENGTH = 10


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class Course(models.Model):
    title = models.CharField(max_length=200)
    join_code = models.CharField(max_length=32, unique=True, default=new_join_code)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        # Needed to create a course, site staff included (superusers hold every permission).
        permissions = [("create_course", "Can create courses")]

    def __str__(self) -> str:
        return self.title


class Membership(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.STUDENT)
    # When the student joined (code) or accepted the invitation: the course's instructors read
    # their submissions made at or after it, never earlier ones.
    joined_at = models.DateTimeField(auto_now_add=True)
    # The student agreed to show their account's e-mail address to the course's instructors.
    share_email = models.BooleanField(default=False)
    # The address the instructor's roster invited, when the student accepted that invitation:
    # the instructor supplied it, so showing it back tells them nothing new.
    roster_email = models.EmailField(blank=True, default="")

    class Meta:
        ordering = ["course_id", "role", "user_id"]
        constraints = one_per("one_membership_per_user", "course", "user")
        indexes = [models.Index(fields=["course", "role"])]

    def __str__(self) -> str:
        return f"{self.user} in {self.course} ({self.role})"

    @property
    def email_for_instructors(self) -> str:
        """The e-mail address the course's instructors may see for this member (the grades CSV,
        the manage page). The rule: the address the instructor's own roster invited the student
        at, once the student accepted that invitation (``roster_email``: the institution's
        roster supplied it); else the account's address if the student agreed to share it
        (``share_email``, asked when joining or accepting, and changeable on the course page);
        else nothing. The account's address is never shown without that agreement, even when
        it equals one the roster listed for somebody else."""
        if self.roster_email:
            return self.roster_email
        if self.share_email:
            return str(getattr(self.user, "email", "") or "")
        return ""


class Assignment(models.Model):
    """Problems due at ``due_at``; an optional late window up to ``late_until`` earns
    ``late_credit`` (0..1) for a problem first accepted in it."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="assignments")
    title = models.CharField(max_length=200)
    opens_at = models.DateTimeField()
    due_at = models.DateTimeField()
    late_until = models.DateTimeField(null=True, blank=True)
    late_credit = models.FloatField(default=0.0)
    problems = models.ManyToManyField(Problem, through="AssignmentProblem", related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(late_credit__gte=0) & Q(late_credit__lte=1),
                name="late_credit_between_0_and_1",
            ),
            models.CheckConstraint(condition=Q(due_at__gte=F("opens_at")), name="due_after_open"),
            models.CheckConstraint(
                condition=Q(late_until__isnull=True) | Q(late_until__gte=F("due_at")),
                name="late_until_after_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.course})"

    def is_open(self, now: datetime) -> bool:
        return self.opens_at <= now


class AssignmentProblem(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="items")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["assignment_id", "position", "id"]
        constraints = one_per("one_problem_per_assignment", "assignment", "problem")

    def __str__(self) -> str:
        return f"{self.assignment_id}: problem {self.problem_id}"


class Extension(models.Model):
    """A student's own due date for one assignment; the late window keeps its length after it."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="extensions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    due_at = models.DateTimeField()
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = one_per("one_extension_per_user", "assignment", "user")

    def __str__(self) -> str:
        return f"{self.user} until {self.due_at:%Y-%m-%d %H:%M} ({self.assignment_id})"


class Invitation(models.Model):
    """One row of an instructor's roster: the course invites whoever holds ``address`` (an
    account's username, or its e-mail address when the value has an @), lower-cased.

    Nothing links it to an account until that account accepts: the import never looks accounts
    up, so its report is the same whether or not an address has an account (it cannot be used
    to learn which addresses do), and an invited student shares nothing with the course before
    saying yes. Accepting makes them a student from that moment (``Membership.joined_at``).
    """

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="invitations")
    address = models.CharField(max_length=254)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    invited_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=10, choices=InvitationStatus.choices, default=InvitationStatus.PENDING
    )
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["course_id", "address"]
        constraints = one_per("one_invitation_per_address", "course", "address")
        indexes = [models.Index(fields=["address", "status"])]

    def __str__(self) -> str:
        return f"{self.address} to {self.course} ({self.status})"

    @property
    def by_email(self) -> bool:
        return "@" in self.address


class Exam(models.Model):
    """A time-boxed window on a course (judge_site/courses/exams.py): between ``opens_at`` and
    ``closes_at`` each student starts their own ``duration_min`` (the whole window when None)
    at their first open; its problems are visible to the course's students only inside their
    own window, without hints, judged against the package versions recorded when it opened
    (``ExamProblem.frozen_version``). A contest's scoreboard freezes ``freeze_min`` before
    ``closes_at`` for students until staff unfreeze it (``unfrozen_at``)."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="exams")
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=8, choices=ExamKind.choices, default=ExamKind.EXAM)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    duration_min = models.PositiveIntegerField(null=True, blank=True)
    freeze_min = models.PositiveIntegerField(default=60)
    unfrozen_at = models.DateTimeField(null=True, blank=True)
    # The assignment whose problems it covers, when it was made from one (informative: the
    # problems themselves are its ExamProblem rows).
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    problems = models.ManyToManyField(Problem, through="ExamProblem", related_name="+")
    frozen_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["opens_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(closes_at__gt=F("opens_at")), name="exam_closes_after_open"
            ),
            models.CheckConstraint(
                condition=Q(duration_min__isnull=True) | Q(duration_min__gt=0),
                name="exam_duration_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.kind}, {self.course})"


class ExamProblem(models.Model):
    """A problem of an exam, with the package version (content hash and folder) recorded when
    the exam opened: its students' submissions in their windows are judged against it."""

    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="items")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)
    frozen_version = models.CharField(max_length=64, blank=True, default="")
    frozen_dir = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["exam_id", "position", "id"]
        constraints = one_per("one_problem_per_exam", "exam", "problem")
        indexes = [models.Index(fields=["problem"])]

    def __str__(self) -> str:
        return f"exam {self.exam_id}: problem {self.problem_id}"


class ExamSeat(models.Model):
    """One student's own window of an exam: ``started_at`` is their first open (None until
    then); ``extra_min`` (an extension) lengthens it, past ``closes_at`` too."""

    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField(null=True, blank=True)
    extra_min = models.PositiveIntegerField(default=0)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["exam_id", "user_id"]
        constraints = one_per("one_seat_per_student", "exam", "user")

    def __str__(self) -> str:
        return f"{self.user} in exam {self.exam_id}"

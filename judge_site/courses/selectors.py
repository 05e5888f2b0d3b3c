"""Reads on courses: who may see which course, which invitations are whose, and which
submissions an instructor may read (the trust map's rule: only what a student made to the
course's problems after joining it)."""

from __future__ import annotations

from typing import TypeAlias

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from judge_site.catalog.models import Problem
from judge_site.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Invitation,
    InvitationStatus,
    Membership,
    Role,
)
from judge_site.submissions.models import Mode, Submission

AnyUser: TypeAlias = AbstractBaseUser | AnonymousUser


def membership_of(user: AnyUser, course_id: int) -> Membership | None:
    """The user's membership of the course, with the course; None for anyone else (anonymous
    users and site staff who are not members included: they use the admin)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.select_related("course")
        .filter(course_id=course_id, user_id=user.pk)
        .first()
    )


def memberships_of(user: AnyUser) -> QuerySet[Membership]:
    if not getattr(user, "is_authenticated", False):
        return Membership.objects.none()
    return Membership.objects.select_related("course").filter(user_id=user.pk).order_by(
        "-course__created_at"
    )


def students_of(course: Course) -> QuerySet[Membership]:
    return (
        Membership.objects.select_related("user")
        .filter(course=course, role=Role.STUDENT)
        .order_by("user__username")
    )


def instructors_of(course: Course) -> QuerySet[Membership]:
    return (
        Membership.objects.select_related("user")
        .filter(course=course, role=Role.INSTRUCTOR)
        .order_by("user__username")
    )


def assignments_of(course: Course) -> list[Assignment]:
    """The course's assignments (by due date) with their problems in order, in two queries."""
    assignments = list(Assignment.objects.filter(course=course).order_by("due_at", "id"))
    items = (
        AssignmentProblem.objects.select_related("problem")
        .filter(assignment__course=course)
        .order_by("assignment_id", "position", "id")
    )
    by_assignment: dict[int, list] = {}
    for item in items:
        by_assignment.setdefault(item.assignment_id, []).append(item.problem)
    for assignment in assignments:
        assignment.problem_list = by_assignment.get(assignment.pk, [])  # type: ignore[attr-defined]
    return assignments


def extensions_of(course: Course) -> dict[tuple[int, int], Extension]:
    """(assignment id, user id) -> extension, for the whole course in one query."""
    return {
        (e.assignment_id, e.user_id): e
        for e in Extension.objects.filter(assignment__course=course)
    }


def instructor_may_read(user: AnyUser, submission: Submission) -> bool:
    """An instructor of a course may read a submission of one of its students when the problem
    is one of the course's and the submission was made at or after the student joined (by code,
    or by accepting an invitation). Nothing else: not another problem, not earlier work, not a
    student who was only invited."""
    if not getattr(user, "is_authenticated", False):
        return False
    taught = Membership.objects.filter(user_id=user.pk, role=Role.INSTRUCTOR).values("course_id")
    return Membership.objects.filter(
        course_id__in=taught,
        user_id=submission.user_id,
        role=Role.STUDENT,
        joined_at__lte=submission.created_at,
        course__assignments__items__problem_id=submission.problem_id,
    ).exists()


def student_submissions_for_course(
    student: Membership, problem: Problem, limit: int = 200
) -> list[Submission]:
    """A student's Submits to one problem that their course may read (made at or after they
    joined it), newest first. The caller checks that the problem is the course's."""
    return list(
        Submission.objects.filter(
            user_id=student.user_id, problem=problem, mode=Mode.SUBMIT,
            created_at__gte=student.joined_at,
        ).order_by("-created_at")[:limit]
    )


def _my_addresses(user: AbstractBaseUser) -> list[str]:
    """The invitation addresses that are ``user``'s: the username (a value without an @), and
    the account's e-mail address (set by an administrator: there is no self-service e-mail)."""
    addresses = []
    name = user.get_username().lower()
    if "@" not in name:
        addresses.append(name)
    email = (getattr(user, "email", "") or "").strip().lower()
    if email:
        addresses.append(email)
    return addresses


def invitations_pending_for(user: AnyUser) -> QuerySet[Invitation]:
    """The pending invitations addressed to ``user``, with their course, newest first; not those
    of a course the user is a member of already (invited by username and by e-mail, say)."""
    if not getattr(user, "is_authenticated", False):
        return Invitation.objects.none()
    return (
        Invitation.objects.select_related("course")
        .filter(address__in=_my_addresses(user), status=InvitationStatus.PENDING)  # type: ignore[arg-type]
        .exclude(course__memberships__user_id=user.pk)
        .order_by("-invited_at", "-id")
    )


def invitations_of(course: Course) -> QuerySet[Invitation]:
    """The course's invitations as its instructors see them: by address. A declined one reads
    as not accepted, like one nobody could answer (it says nothing of the account)."""
    return Invitation.objects.filter(course=course).order_by("address")

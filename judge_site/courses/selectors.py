"""Reads on courses: who may see which course, and which submissions an instructor may read."""

from __future__ import annotations

from typing import TypeAlias

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from judge_site.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Membership,
    Role,
)
from judge_site.submissions.models import Submission

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
    """An instructor of a course may read the submissions of its students to its problems."""
    if not getattr(user, "is_authenticated", False):
        return False
    taught = Membership.objects.filter(user_id=user.pk, role=Role.INSTRUCTOR).values("course_id")
    return Membership.objects.filter(
        course_id__in=taught,
        user_id=submission.user_id,
        role=Role.STUDENT,
        course__assignments__items__problem_id=submission.problem_id,
    ).exists()


def submission_for_instructor(user: AnyUser, submission_id: int) -> Submission | None:
    submission = (
        Submission.objects.select_related("problem", "user").filter(pk=submission_id).first()
    )
    if submission is None or not instructor_may_read(user, submission):
        return None
    return submission

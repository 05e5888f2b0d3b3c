"""Helpers of the course tests: a course with an instructor (ines), submissions made directly
with their verdict and creation time (the credit rules read nothing else).

The students of ``make_course`` joined 30 days ago (``joined``), so that submissions the tests
date hours or days back count: the course sees only what a student made after joining it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from judge_site.courses.models import Assignment, AssignmentProblem, Course, Membership, Role
from judge_site.submissions.models import Submission

NOW = timezone.now


def ago(**delta: float) -> datetime:
    return timezone.now() - timedelta(**delta)


def later(**delta: float) -> datetime:
    return timezone.now() + timedelta(**delta)


def make_course(
    instructor: Any, title: str = "LLM internals", *students: Any, joined: datetime | None = None
) -> Course:
    course = Course.objects.create(title=title, created_by=instructor)
    Membership.objects.create(course=course, user=instructor, role=Role.INSTRUCTOR)
    for student in students:
        join(course, student, joined or ago(days=30))
    return course


def join(course: Course, student: Any, at: datetime | None = None) -> Membership:
    """``student`` joins ``course`` (as by its code) at ``at`` (now by default)."""
    membership = Membership.objects.create(course=course, user=student, role=Role.STUDENT)
    if at is not None:  # joined_at is auto_now_add: set the time of joining afterwards
        Membership.objects.filter(pk=membership.pk).update(joined_at=at)
        membership.refresh_from_db()
    return membership


def make_assignment(
    course: Course, problems: list[Any], *, title: str = "Week 1", opens: datetime | None = None,
    due: datetime | None = None, late_until: datetime | None = None, late_credit: float = 0.0,
) -> Assignment:
    assignment = Assignment.objects.create(
        course=course, title=title, opens_at=opens or ago(days=7), due_at=due or later(days=7),
        late_until=late_until, late_credit=late_credit,
    )
    for i, problem in enumerate(problems):
        AssignmentProblem.objects.create(assignment=assignment, problem=problem, position=i)
    return assignment


def submit(
    user: Any, problem: Any, verdict: str, at: datetime, *, speedup: float | None = None,
    tests: list[dict[str, Any]] | None = None, mode: str = "submit", status: str = "done",
) -> Submission:
    sub = Submission.objects.create(
        user=user, problem=problem, code=f"# {verdict} by {user.username}\n", mode=mode,
        status=status, verdict=verdict if status == "done" else "",
        benchmark={"speedup": speedup, "trust": "verified"} if speedup is not None else None,
        tests=tests or [],
    )
    # created_at is auto_now_add: set the time the student pressed Submit afterwards.
    Submission.objects.filter(pk=sub.pk).update(created_at=at, finished_at=timezone.now())
    sub.refresh_from_db()
    return sub


def api(client: Any, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    if method == "GET":
        return client.get(path, **headers)
    data = body if isinstance(body, str | bytes) else json.dumps(body if body is not None else {})
    return client.post(path, data=data, content_type="application/json", **headers)


def quick_user(name: str, *, staff: bool = False) -> Any:
    """A user without a usable password (the tests log in with force_login)."""
    user = get_user_model()(username=name, is_staff=staff)
    user.set_unusable_password()
    user.save()
    return user


def instructor(name: str = "ines") -> Any:
    return quick_user(name)

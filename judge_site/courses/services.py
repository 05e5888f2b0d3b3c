"""Writes on courses: create, join, removal, assignments, deadlines and extensions (roster
invitations and their answers: judge_site/courses/invitations.py).

Every change that can move a grade (a deadline moved, an extension given, a student removed)
is written to the audit log (judge_site/staff AuditEntry) in the same transaction.
"""

from __future__ import annotations

import hmac
from datetime import datetime, tzinfo
from typing import Any, TypeAlias
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction

from judge_site.catalog.models import Problem
from judge_site.core import inputs
from judge_site.core.api import ApiError
from judge_site.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Membership,
    Role,
    new_join_code,
)
from judge_site.staff.services.audit import audit_record

AnyUser: TypeAlias = AbstractBaseUser | AnonymousUser
MAX_PROBLEMS_PER_ASSIGNMENT = 100
MAX_ROSTER_ROWS = 2000
MAX_ROSTER_BYTES = 256 * 1024


class CourseError(ApiError):
    """A refused course action: ``message`` says why and what to do; ``status`` is the HTTP
    status to answer with (the API answers it as its error; the pages show the message)."""


CREATE_COURSE = "courses.create_course"


def can_create_course(user: AnyUser) -> bool:
    """Holders of courses.create_course (directly or through a group; superusers hold every
    permission). ``is_staff`` alone is not enough: an instructor reads their students' work."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return False
    return user.has_perm(CREATE_COURSE)


def _clean_title(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CourseError("title: missing (a non-empty string)")
    title = " ".join(value.split())
    if inputs.text_problem(title):
        raise CourseError(f"title: {inputs.text_problem(title)}")
    if len(title) > 200:
        raise CourseError("title: at most 200 characters")
    return title


def course_target(course: Course) -> str:
    return f"course {course.pk} ({course.title})"


@transaction.atomic
def course_create(user: AbstractBaseUser, title: Any) -> Course:
    if not can_create_course(user):
        raise CourseError(
            "you may not create courses (ask an administrator for the permission "
            "'Can create courses', courses.create_course)", 403
        )
    course = Course.objects.create(title=_clean_title(title), created_by=user)
    Membership.objects.create(course=course, user=user, role=Role.INSTRUCTOR)
    audit_record(user, "course.create", course_target(course))
    return course


def _same_code(given: Any, known: str) -> bool:
    if not isinstance(given, str):
        return False
    cleaned = given.strip().replace("-", "").replace(" ", "").upper()
    return hmac.compare_digest(cleaned.encode(), known.encode())


def course_join(
    user: AbstractBaseUser, course: Course, code: Any, *, share_email: Any = False
) -> tuple[Membership, bool]:
    """Join ``course`` as a student with its join code: (membership, created). The course's
    instructors read the student's submissions from now on (``joined_at``); ``share_email``
    (a bool) lets them see the account's e-mail address. A member who joins again keeps their
    membership (an instructor stays an instructor)."""
    if not isinstance(share_email, bool):
        raise CourseError("share_email: true or false")
    if not _same_code(code, course.join_code):
        raise CourseError("join_code: no such course, or not its join code", 404)
    membership, created = Membership.objects.get_or_create(
        course=course, user=user, defaults={"role": Role.STUDENT, "share_email": share_email}
    )
    return membership, created


def course_join_by_code(
    user: AbstractBaseUser, code: Any, *, share_email: Any = False
) -> tuple[Membership, bool]:
    if not isinstance(code, str) or not code.strip():
        raise CourseError("join_code: missing")
    cleaned = code.strip().replace("-", "").replace(" ", "").upper()
    known = cleaned.isascii() and cleaned.isalnum() and len(cleaned) <= 32
    course = Course.objects.filter(join_code=cleaned).first() if known else None
    if course is None:
        raise CourseError("join_code: no course has this join code", 404)
    return course_join(user, course, cleaned, share_email=share_email)


def course_rotate_code(actor: AbstractBaseUser, course: Course) -> str:
    """A fresh join code; the old one stops working (members stay)."""
    for _ in range(5):
        code = new_join_code()
        try:
            with transaction.atomic():
                Course.objects.filter(pk=course.pk).update(join_code=code)
                audit_record(actor, "course.rotate_code", course_target(course))
        except IntegrityError:  # the code is taken (one in 31^10): draw again
            continue
        course.join_code = code
        return code
    raise CourseError("could not draw a fresh join code; try again", 503)


@transaction.atomic
def student_remove(actor: AbstractBaseUser, course: Course, user_id: int) -> None:
    """Remove a student (their submissions stay theirs; they leave the matrix and the grades)."""
    membership = (
        Membership.objects.select_related("user", "course")
        .filter(course=course, user_id=user_id, role=Role.STUDENT)
        .first()
    )
    if membership is None:
        raise CourseError("no such student in this course", 404)
    membership.delete()
    audit_student_removed(actor, membership)


def audit_student_removed(actor: AbstractBaseUser, membership: Membership, **extra: Any) -> None:
    audit_record(
        actor, "course.student_remove", course_target(membership.course),
        student=membership.user.get_username(), user_id=membership.user_id, **extra,
    )


def instructor_add(actor: AbstractBaseUser, course: Course, user: AbstractBaseUser) -> None:
    with transaction.atomic():
        Membership.objects.update_or_create(
            course=course, user=user, defaults={"role": Role.INSTRUCTOR}
        )
        audit_record(actor, "course.instructor_add", course_target(course), user=user.get_username())


def parse_when(value: Any, name: str, *, zone: tzinfo | None = None) -> datetime:
    """An ISO 8601 date and time. The API requires an offset (``zone`` None); the pages send
    the browser's time zone, which applies to a value without one."""
    if not isinstance(value, str) or not value.strip():
        raise CourseError(f"{name}: missing (ISO 8601 with an offset, e.g. 2026-12-03T17:00:00+01:00)")
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CourseError(
            f"{name}: {inputs.shorten(value)} is not an ISO 8601 date and time"
        ) from None
    if when.tzinfo is None:
        if zone is None:
            raise CourseError(f"{name}: give an offset (e.g. +00:00 or Z)")
        when = when.replace(tzinfo=zone)
    if not 1970 <= when.year <= 9998:
        raise CourseError(f"{name}: out of range")
    return when


def zone_named(name: Any) -> tzinfo:
    """The IANA zone the browser reported (the pages' forms), else UTC."""
    try:
        return ZoneInfo(name) if isinstance(name, str) and 0 < len(name) < 60 else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _late_credit(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise CourseError("late_credit: a number between 0 and 1")
    try:
        credit = float(value)
    except ValueError:
        raise CourseError("late_credit: a number between 0 and 1") from None
    if not 0.0 <= credit <= 1.0:  # NaN fails this too
        raise CourseError("late_credit: a number between 0 and 1")
    return credit


def _problems(numbers: Any, *, unpublished: bool = False) -> list[Problem]:
    if not isinstance(numbers, list) or not numbers:
        raise CourseError("problems: a non-empty list of problem numbers")
    if len(numbers) > MAX_PROBLEMS_PER_ASSIGNMENT:
        raise CourseError(f"problems: at most {MAX_PROBLEMS_PER_ASSIGNMENT}")
    wanted: list[int] = []
    for value in numbers:
        number = inputs.problem_number(value)
        if number is None:
            raise CourseError(f"problems: {inputs.shorten(value)} is not a problem number")
        if number not in wanted:
            wanted.append(number)
    # Only published problems (a student could not open an unpublished one), but an exam's
    # made by site staff (its students read them inside their window: courses/exams.py).
    chosen = Problem.objects.filter(number__in=wanted)
    found = {p.number: p for p in (chosen if unpublished else chosen.filter(published=True))}
    missing = [n for n in wanted if n not in found]
    if missing:
        raise CourseError(f"problems: no published problem {', '.join(map(str, missing))}")
    return [found[n] for n in wanted]


def _check_times(opens: datetime, due: datetime, late_until: datetime | None) -> None:
    if due < opens:
        raise CourseError("due_at: before opens_at")
    if late_until is not None and late_until < due:
        raise CourseError("late_until: before due_at")


def assignment_create(
    actor: AbstractBaseUser,
    course: Course,
    data: dict[str, Any],
    *,
    zone: tzinfo | None = None,
) -> Assignment:
    """An assignment from the API's fields: title, problems (numbers), opens_at, due_at,
    late_until (optional), late_credit (optional, 0..1)."""
    title = _clean_title(data.get("title"))
    problems = _problems(data.get("problems"))
    opens = parse_when(data.get("opens_at"), "opens_at", zone=zone)
    due = parse_when(data.get("due_at"), "due_at", zone=zone)
    raw_late = data.get("late_until")
    late_until = parse_when(raw_late, "late_until", zone=zone) if raw_late else None
    credit = _late_credit(data.get("late_credit"))
    _check_times(opens, due, late_until)
    with transaction.atomic():
        assignment = Assignment.objects.create(
            course=course, title=title, opens_at=opens, due_at=due, late_until=late_until,
            late_credit=credit if late_until else 0.0,
        )
        AssignmentProblem.objects.bulk_create(
            AssignmentProblem(assignment=assignment, problem=p, position=i)
            for i, p in enumerate(problems)
        )
        audit_record(
            actor, "course.assignment_create", course_target(course),
            assignment=assignment.pk, problems=[p.number for p in problems],
            due_at=due.isoformat(),
        )
    return assignment


_DEADLINE_FIELDS = ("opens_at", "due_at", "late_until", "late_credit")


def assignment_reschedule(
    actor: AbstractBaseUser,
    assignment: Assignment,
    data: dict[str, Any],
    *,
    zone: tzinfo | None = None,
) -> list[str]:
    """Move an assignment's dates or late credit (the keys given); the fields changed, each
    recorded in the audit log with its value before and after."""
    new: dict[str, Any] = {}
    for name in ("opens_at", "due_at"):
        if data.get(name):
            new[name] = parse_when(data[name], name, zone=zone)
    if "late_until" in data:
        new["late_until"] = (
            parse_when(data["late_until"], "late_until", zone=zone) if data["late_until"] else None
        )
    if "late_credit" in data:
        new["late_credit"] = _late_credit(data["late_credit"])
    merged = {name: new.get(name, getattr(assignment, name)) for name in _DEADLINE_FIELDS}
    _check_times(merged["opens_at"], merged["due_at"], merged["late_until"])
    changed = [n for n in _DEADLINE_FIELDS if merged[n] != getattr(assignment, n)]
    if not changed:
        return []
    with transaction.atomic():
        detail = {
            n: [_jsonable(getattr(assignment, n)), _jsonable(merged[n])] for n in changed
        }
        Assignment.objects.filter(pk=assignment.pk).update(**{n: merged[n] for n in changed})
        for n in changed:
            setattr(assignment, n, merged[n])
        audit_record(
            actor, "course.deadline", course_target(assignment.course),
            assignment=assignment.pk, title=assignment.title, changed=detail,
        )
    return changed


def audit_admin_change(actor: AbstractBaseUser, before: Assignment, after: Assignment) -> None:
    """The admin's form saved ``after``: record a deadline change as the pages do."""
    changed = {
        n: [_jsonable(getattr(before, n)), _jsonable(getattr(after, n))]
        for n in _DEADLINE_FIELDS
        if getattr(before, n) != getattr(after, n)
    }
    if changed:
        audit_record(
            actor, "course.deadline", course_target(after.course),
            assignment=after.pk, title=after.title, changed=changed, via="admin",
        )


def _jsonable(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def extension_grant(
    actor: AbstractBaseUser,
    assignment: Assignment,
    user_id: int,
    due_at: Any,
    *,
    zone: tzinfo | None = None,
) -> Extension:
    """Give one student of the course their own due date for ``assignment``."""
    if not Membership.objects.filter(
        course_id=assignment.course_id, user_id=user_id, role=Role.STUDENT
    ).exists():
        raise CourseError("no such student in this course", 404)
    when = due_at if isinstance(due_at, datetime) else parse_when(due_at, "due_at", zone=zone)
    with transaction.atomic():
        previous = Extension.objects.filter(assignment=assignment, user_id=user_id).first()
        extension, _ = Extension.objects.update_or_create(
            assignment=assignment, user_id=user_id,
            defaults={"due_at": when, "granted_by": actor},
        )
        audit_extension(actor, extension, previous.due_at if previous else None)
    return extension


def audit_extension(
    actor: AbstractBaseUser, extension: Extension, before: datetime | None, **extra: Any
) -> None:
    audit_record(
        actor, "course.extension", course_target(extension.assignment.course),
        assignment=extension.assignment_id, user_id=extension.user_id,
        due_at=extension.due_at.isoformat(), before=before.isoformat() if before else None,
        **extra,
    )

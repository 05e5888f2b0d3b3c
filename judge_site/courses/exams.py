"""Exams and contests on a course: windows, each student's own time in them, and the gates
the rest of the site asks (judge_site/core/gates.py).

Rules (docs/courses.md, "Exams and contests"):

- A student starts their own window at their first open (``exam_start``, between opens_at and
  closes_at); it lasts ``duration_min`` (the rest of the window when None) and ends at
  closes_at at the latest; an extension (``extra_min``) lengthens it, past closes_at too.
- The exam's problems are visible to the course's students only inside their own window:
  before it the problem page says when the exam opens, after it that their time ended. The
  course's instructors and site staff always see them. Hints, the notes after an AC and the
  statistics are off for students.
- An exam may cover unpublished problems (site staff put them in): such a problem is read only
  by the exam's students inside their own window, its course's instructors and site staff;
  everyone else gets the catalog's 404 for it, and it is listed nowhere. A published problem
  stays public: only the course's students are gated, so a real exam uses unpublished ones
  (the exam's page warns its instructors while it has not opened).
- A Run or Submit of a student outside their own window is refused (403, saying when), so the
  only submissions of the exam are those inside it.
- The package version of each problem is recorded when the exam opens (its first start, or a
  page read after opens_at): submissions made inside a window are judged against it, even
  after staff activate a newer version.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.core import gates
from judge_site.courses.models import (
    Assignment,
    Course,
    Exam,
    ExamKind,
    ExamProblem,
    ExamSeat,
    Membership,
    Role,
)
from judge_site.courses.services import (
    CourseError,
    _clean_title,
    _problems,
    course_target,
    parse_when,
)
from judge_site.staff.services.audit import audit_record

logger = logging.getLogger(__name__)
MAX_DURATION_MIN = 60 * 24 * 14
MAX_EXTRA_MIN = 60 * 24 * 7


def when_text(moment: datetime) -> str:
    """A time as messages say it (UTC, to the minute); the pages show it in the viewer's zone."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


@dataclass(frozen=True)
class Window:
    """A student's own window: ``phase`` upcoming (before opens_at), ready (open, not started),
    running, ended (their time is over) or closed (the exam closed before they started)."""

    phase: str
    start: datetime | None
    end: datetime | None

    @property
    def running(self) -> bool:
        return self.phase == "running"


def seat_end(exam: Exam, started_at: datetime, extra_min: int) -> datetime:
    end = exam.closes_at
    if exam.duration_min:
        end = min(end, started_at + timedelta(minutes=exam.duration_min))
    return end + timedelta(minutes=extra_min)


def window_of(exam: Exam, seat: ExamSeat | None, now: datetime) -> Window:
    if seat is not None and seat.started_at is not None:
        end = seat_end(exam, seat.started_at, seat.extra_min)
        return Window("running" if now < end else "ended", seat.started_at, end)
    if now < exam.opens_at:
        return Window("upcoming", None, None)
    if now < exam.closes_at:
        return Window("ready", None, None)
    return Window("closed", None, None)


def exam_url(exam: Exam) -> str:
    return reverse("courses:exam", args=[exam.course_id, exam.pk])


def _minutes(value: Any, name: str, *, low: int, high: int, blank: int | None) -> int | None:
    if value in (None, ""):
        return blank
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise CourseError(f"{name}: a whole number of minutes")
    text = str(value).strip()
    if not text.isdigit() or not low <= int(text) <= high:
        raise CourseError(f"{name}: a whole number of minutes from {low} to {high}")
    return int(text)


def exam_create(
    actor: AbstractBaseUser, course: Course, data: dict[str, Any], *, zone: tzinfo | None = None
) -> Exam:
    """An exam from the fields: title, kind (exam | contest), opens_at, closes_at, duration_min
    (optional: the whole window), freeze_min (contests; default 60, 0: never frozen), and
    either problems (numbers) or assignment (an id of the course: its problems)."""
    title = _clean_title(data.get("title"))
    kind = data.get("kind") or ExamKind.EXAM
    if kind not in ExamKind.values:
        raise CourseError("kind: 'exam' or 'contest'")
    opens = parse_when(data.get("opens_at"), "opens_at", zone=zone)
    closes = parse_when(data.get("closes_at"), "closes_at", zone=zone)
    if closes <= opens:
        raise CourseError("closes_at: after opens_at")
    duration = _minutes(data.get("duration_min"), "duration_min", low=1,
                        high=MAX_DURATION_MIN, blank=None)
    freeze = _minutes(data.get("freeze_min"), "freeze_min", low=0, high=MAX_DURATION_MIN,
                      blank=60)
    assignment = None
    raw_assignment = data.get("assignment")
    if raw_assignment not in (None, ""):
        text = str(raw_assignment).strip()
        assignment = (
            Assignment.objects.filter(pk=int(text), course=course).first()
            if text.isdigit() and len(text) < 12 else None
        )
        if assignment is None:
            raise CourseError("assignment: no such assignment in this course", 404)
        problems = [item.problem for item in assignment.items.select_related("problem")]
    else:  # unpublished problems: site staff only (an instructor would read them by it)
        staff = bool(getattr(actor, "is_staff", False))
        try:
            problems = _problems(data.get("problems"), unpublished=staff)
        except CourseError as exc:
            if staff or "no published problem" not in exc.message:
                raise
            raise CourseError(f"{exc.message} (an exam of an unpublished problem is made by "
                              "site staff: ask them to add it)") from None
    with transaction.atomic():
        exam = Exam.objects.create(
            course=course, title=title, kind=kind, opens_at=opens, closes_at=closes,
            duration_min=duration, freeze_min=freeze or 0, assignment=assignment,
        )
        ExamProblem.objects.bulk_create(
            ExamProblem(exam=exam, problem=p, position=i) for i, p in enumerate(problems)
        )
        audit_record(
            actor, "course.exam_create", course_target(course), exam=exam.pk, kind=kind,
            problems=[p.number for p in problems], opens_at=opens.isoformat(),
            closes_at=closes.isoformat(), duration_min=duration,
        )
    exam_freeze(exam)
    return exam


def exam_freeze(exam: Exam, now: datetime | None = None) -> bool:
    """Record each problem's current package version once the exam is open (idempotent:
    conditional UPDATEs, the first caller records). True when the versions are recorded."""
    if exam.frozen_at is not None:
        return True
    now = now or timezone.now()
    if now < exam.opens_at:
        return False
    with transaction.atomic():
        for item in ExamProblem.objects.filter(exam=exam, frozen_version="").select_related(
            "problem"
        ):
            ExamProblem.objects.filter(pk=item.pk, frozen_version="").update(
                frozen_version=item.problem.version, frozen_dir=item.problem.package_dir
            )
        Exam.objects.filter(pk=exam.pk, frozen_at__isnull=True).update(frozen_at=now)
    exam.frozen_at = Exam.objects.values_list("frozen_at", flat=True).get(pk=exam.pk)
    return True


def exam_start(
    user: AbstractBaseUser, exam: Exam, now: datetime | None = None
) -> tuple[ExamSeat, bool]:
    """Start ``user``'s own window (a student of the exam's course) now: (seat, True), or
    (seat, False) for the one started before. Refused (CourseError 403) before opens_at and
    after closes_at."""
    now = now or timezone.now()
    if not Membership.objects.filter(course_id=exam.course_id, user_id=user.pk,
                                     role=Role.STUDENT).exists():
        raise CourseError("only the course's students take its exams", 403)
    seat = ExamSeat.objects.filter(exam=exam, user_id=user.pk).first()
    if seat is not None and seat.started_at is not None:
        return seat, False
    if now < exam.opens_at:
        raise CourseError(f"{exam.title} opens at {when_text(exam.opens_at)}: start it then", 403)
    if now >= exam.closes_at:
        raise CourseError(f"{exam.title} closed at {when_text(exam.closes_at)}", 403)
    exam_freeze(exam, now)
    if seat is None:
        try:
            with transaction.atomic():
                seat = ExamSeat.objects.create(exam=exam, user_id=user.pk, started_at=now)
        except IntegrityError:  # a second tab started it a moment ago
            return ExamSeat.objects.get(exam=exam, user_id=user.pk), False
        return seat, True
    # A seat made by an extension before the start.
    started = ExamSeat.objects.filter(pk=seat.pk, started_at__isnull=True).update(started_at=now)
    seat.refresh_from_db()
    return seat, bool(started)


def exam_extend(actor: AbstractBaseUser, exam: Exam, user_id: int, extra: Any) -> ExamSeat:
    """Give one student ``extra`` minutes more in ``exam`` (replacing an earlier extension)."""
    minutes = _minutes(extra, "extra_min", low=0, high=MAX_EXTRA_MIN, blank=None)
    if minutes is None:
        raise CourseError("extra_min: missing (a whole number of minutes)")
    if not Membership.objects.filter(course_id=exam.course_id, user_id=user_id,
                                     role=Role.STUDENT).exists():
        raise CourseError("no such student in this course", 404)
    with transaction.atomic():
        seat, _ = ExamSeat.objects.get_or_create(exam=exam, user_id=user_id)
        before = seat.extra_min
        ExamSeat.objects.filter(pk=seat.pk).update(extra_min=minutes, granted_by=actor)
        seat.extra_min = minutes
        audit_record(actor, "course.exam_extension", course_target(exam.course), exam=exam.pk,
                     user_id=user_id, extra_min=minutes, before=before)
    return seat


def exam_unfreeze(actor: AbstractBaseUser, exam: Exam, now: datetime | None = None) -> bool:
    """Show the live scoreboard to everyone from now on; False when it was unfrozen before."""
    with transaction.atomic():
        done = Exam.objects.filter(pk=exam.pk, unfrozen_at__isnull=True).update(
            unfrozen_at=now or timezone.now()
        )
        if done:
            audit_record(actor, "course.exam_unfreeze", course_target(exam.course), exam=exam.pk)
    exam.refresh_from_db()
    return bool(done)


# ------------------------------------------------------------------ gates (core/gates.py)


def _gate_message(exam: Exam, problem: Problem, window: Window) -> str:
    named = f"problem {problem.number} is part of {exam.title}"
    if window.phase == "upcoming":
        return f"{named}, which opens at {when_text(exam.opens_at)}: come back then"
    if window.phase == "ready":
        return (f"{named}: start it on its page ({exam_url(exam)}) to see the problem and "
                f"submit; it closes at {when_text(exam.closes_at)}")
    if window.phase == "ended" and window.end is not None:
        return f"{named}: your time ended at {when_text(window.end)}; it takes no more submissions"
    return f"{named}, which closed at {when_text(exam.closes_at)}"


def problem_gate(user: Any, problem: Any, now: datetime) -> gates.Gate | None:
    """The gate of the exams covering ``problem`` in the courses ``user`` is a student of."""
    if getattr(user, "is_staff", False):
        return None
    exams = list(
        Exam.objects.filter(items__problem_id=problem.pk, course__memberships__user_id=user.pk,
                            course__memberships__role=Role.STUDENT)
        .order_by("opens_at", "id").distinct()
    )
    if not exams:
        return None
    taught = set(Membership.objects.filter(
        user_id=user.pk, role=Role.INSTRUCTOR, course_id__in=[e.course_id for e in exams]
    ).values_list("course_id", flat=True))
    seats = {s.exam_id: s for s in ExamSeat.objects.filter(exam__in=exams, user_id=user.pk)}
    closed: list[gates.Gate] = []
    for exam in exams:
        if exam.course_id in taught:
            return None
        window = window_of(exam, seats.get(exam.pk), now)
        if window.running:
            return gates.Gate(True, hints=False, ends_at=window.end, title=exam.title,
                              url=exam_url(exam))
        closed.append(gates.Gate(False, _gate_message(exam, problem, window), hints=False,
                                 title=exam.title, url=exam_url(exam)))
        if window.phase in ("upcoming", "ready"):
            closed.insert(0, closed.pop())  # the exam still to take says the most
    return closed[0]


def unpublished_reader(user: Any, problem: Any, now: datetime) -> bool:
    """Whether ``user`` (not staff) reads the unpublished ``problem`` now: an instructor of a
    course with an exam covering it always, its student inside their own window."""
    covering = Exam.objects.filter(items__problem_id=problem.pk)
    if Membership.objects.filter(user_id=user.pk, role=Role.INSTRUCTOR,
                                 course__exams__in=covering).exists():
        return True
    gate = problem_gate(user, problem, now)
    return gate is not None and gate.open


def public_problems(exam: Exam, now: datetime) -> list[Problem]:
    """The published problems of an exam that has not opened: anyone can read them before it
    (only the course's students are gated), which the exam's page tells its instructors."""
    if now >= exam.opens_at:
        return []
    return [item.problem for item in exam.items.select_related("problem").order_by("position")
            if item.problem.published]


def package_pin(submission: Any) -> tuple[str, str] | None:
    """The frozen (folder, version) of the exam whose window ``submission`` was made in."""
    items = list(
        ExamProblem.objects.select_related("exam", "problem")
        .filter(problem_id=submission.problem_id, exam__seats__user_id=submission.user_id,
                exam__seats__started_at__lte=submission.created_at)
        .exclude(frozen_version="")
    )
    if not items:
        return None
    seats = {s.exam_id: s for s in ExamSeat.objects.filter(
        exam_id__in=[i.exam_id for i in items], user_id=submission.user_id)}
    for item in items:
        seat = seats.get(item.exam_id)
        if seat is None or seat.started_at is None:
            continue
        if submission.created_at <= seat_end(item.exam, seat.started_at, seat.extra_min):
            if item.frozen_version == item.problem.version:
                return None  # still the current version: judged as every other submission
            return _frozen_folder(item), item.frozen_version
    return None


def _frozen_folder(item: ExamProblem) -> str:
    """The folder holding the frozen version: the recorded one, or (a catalog folder that a
    sync rewrote since) another this host has with the same content hash."""
    from judge_site.catalog.worker_views import package_dir_of_version

    found = package_dir_of_version(item.frozen_version)
    if found is None:
        logger.warning("exam %s: no folder holds version %s of problem %s here; judged from %s",
                       item.exam_id, item.frozen_version, item.problem_id, item.frozen_dir)
        return item.frozen_dir
    return str(found)

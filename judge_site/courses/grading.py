"""Credit, computed from the submissions when read (never stored), so that a rejudge that
changes a verdict changes the credit.

Rules (docs/courses.md): per student, assignment and problem, 1 when the student's first
accepted Submit was created by the due date (the assignment's, or the student's extension),
``late_credit`` when it was created in the late window after it, 0 otherwise. The submission's
creation time counts, never its judging time. Only Submit judgings count (a Run is public tests
only); an internal error (IE) counts neither as an attempt nor as a verdict. Only submissions
made at or after the student joined the course count (the course sees nothing earlier: the
trust map), so work done before joining earns credit once it is submitted again.

Queries are per course and bounded by its size: one aggregate over the submissions of its
students to its problems (GROUP BY user, problem on the (user, problem, -created_at) index),
whatever the number of assignments or students.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import (
    Case,
    Count,
    Exists,
    FloatField,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    Value,
    When,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from judge_site.catalog.models import Problem
from judge_site.courses import selectors
from judge_site.courses.models import Assignment, Course, Extension, Membership, Role
from judge_site.submissions.models import VERDICT_ORDER as SUBMISSION_VERDICT_ORDER
from judge_site.submissions.models import Mode, Status, Submission, VerdictChoice

# Best first: a student's "best verdict" on a problem is the lowest rank among their judgings.
VERDICT_ORDER = [v for v in SUBMISSION_VERDICT_ORDER if v != VerdictChoice.IE]
COUNTED = Q(mode=Mode.SUBMIT, status=Status.DONE) & ~Q(verdict=VerdictChoice.IE) & ~Q(verdict="")


@dataclass(frozen=True)
class Tally:
    """One student's judged Submit attempts on one problem."""

    attempts: int
    first_ac: datetime | None
    best_speedup: float | None
    best_verdict: str
    last_id: int


def counted_submissions(course: Course, problem_ids: list[int], user_id: int | None = None):
    """The submissions that count for the course: its students' judged Submits to its problems,
    made at or after the student joined it."""
    joined = Membership.objects.filter(
        course=course, role=Role.STUDENT, user_id=OuterRef("user_id"),
        joined_at__lte=OuterRef("created_at"),
    )
    qs = Submission.objects.filter(COUNTED, Exists(joined), problem_id__in=problem_ids)
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    return qs


def tallies(
    course: Course, problem_ids: list[int], user_id: int | None = None
) -> dict[tuple[int, int], Tally]:
    """(user id, problem id) -> Tally, in one aggregate query."""
    if not problem_ids:
        return {}
    rank = Case(
        *[When(verdict=v, then=Value(i)) for i, v in enumerate(VERDICT_ORDER)],
        default=Value(len(VERDICT_ORDER)),
        output_field=IntegerField(),
    )
    accepted = Q(verdict=VerdictChoice.AC)
    rows = (
        counted_submissions(course, problem_ids, user_id)
        .order_by()
        .values("user_id", "problem_id")
        .annotate(
            attempts=Count("id"),
            first_ac=Min("created_at", filter=accepted),
            # A rejected timing's figure (a result stored before the grader dropped it) never
            # counts: no speedup, no rank (issue 36).
            best_speedup=Max(
                Case(
                    When(benchmark__trust="rejected", then=Value(None)),
                    default=Cast(KT("benchmark__speedup"), FloatField()),
                    output_field=FloatField(),
                ),
                filter=accepted,
            ),
            best_rank=Min(rank),
            last_id=Max("id"),
        )
    )
    return {
        (r["user_id"], r["problem_id"]): Tally(
            attempts=r["attempts"],
            first_ac=r["first_ac"],
            best_speedup=r["best_speedup"],
            best_verdict=(
                VERDICT_ORDER[r["best_rank"]] if r["best_rank"] < len(VERDICT_ORDER) else "?"
            ),
            last_id=r["last_id"],
        )
        for r in rows
    }


def student_window(
    assignment: Assignment, extension: Extension | None
) -> tuple[datetime, datetime | None]:
    """The student's (due, late until): an extension moves both, the late window keeping
    its length."""
    if extension is None:
        return assignment.due_at, assignment.late_until
    shift: timedelta = extension.due_at - assignment.due_at
    late = assignment.late_until + shift if assignment.late_until else None
    return extension.due_at, late


def credit_of(
    assignment: Assignment, first_ac: datetime | None, due: datetime, late_until: datetime | None
) -> tuple[float, str]:
    """(credit, state): state is "on_time", "late" (in the late window), "too_late" (accepted
    after every window) or "none" (never accepted)."""
    if first_ac is None:
        return 0.0, "none"
    if first_ac <= due:
        return 1.0, "on_time"
    if late_until is not None and first_ac <= late_until:
        return float(assignment.late_credit), "late"
    return 0.0, "too_late"


@dataclass(frozen=True)
class Column:
    assignment: Assignment
    problem: Problem

    @property
    def key(self) -> str:
        return f"{self.assignment.pk}-{self.problem.number}"


@dataclass(frozen=True)
class Cell:
    column: Column
    tally: Tally | None
    credit: float
    state: str
    due: datetime

    @property
    def credit_text(self) -> str:
        return fmt_credit(self.credit)


@dataclass
class StudentRow:
    membership: Membership
    cells: list[Cell] = field(default_factory=list)
    totals: dict[int, float] = field(default_factory=dict)

    @property
    def user(self):  # type: ignore[no-untyped-def]
        return self.membership.user

    @property
    def totals_shown(self) -> list[tuple[float, str]]:
        """(value, as shown) per assignment, in the gradebook's order."""
        return [(v, fmt_credit(v)) for v in self.totals.values()]

    @property
    def total(self) -> float:
        return sum(self.totals.values())

    @property
    def solved(self) -> int:
        return sum(1 for c in self.cells if c.tally and c.tally.first_ac)

    @property
    def late_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.state == "late"]


@dataclass
class Gradebook:
    course: Course
    assignments: list[Assignment]
    columns: list[Column]
    rows: list[StudentRow]
    tallies: dict[tuple[int, int], Tally]

    @property
    def problems(self) -> list[Problem]:
        seen: dict[int, Problem] = {}
        for column in self.columns:
            seen.setdefault(column.problem.pk, column.problem)
        return list(seen.values())


def gradebook(course: Course, only_user_id: int | None = None) -> Gradebook:
    """Every student's (or one student's) credit per assignment and problem: five queries."""
    assignments = selectors.assignments_of(course)
    columns = [Column(a, p) for a in assignments for p in a.problem_list]  # type: ignore[attr-defined]
    problem_ids = sorted({c.problem.pk for c in columns})
    students = selectors.students_of(course)
    if only_user_id is not None:
        students = students.filter(user_id=only_user_id)
    found = tallies(course, problem_ids, only_user_id)
    extensions = selectors.extensions_of(course)
    rows = []
    for membership in students:
        row = StudentRow(membership)
        for assignment in assignments:
            row.totals[assignment.pk] = 0.0
        for column in columns:
            tally = found.get((membership.user_id, column.problem.pk))
            due, late_until = student_window(
                column.assignment, extensions.get((column.assignment.pk, membership.user_id))
            )
            credit, state = credit_of(
                column.assignment, tally.first_ac if tally else None, due, late_until
            )
            row.cells.append(Cell(column, tally, credit, state, due))
            row.totals[column.assignment.pk] += credit
        rows.append(row)
    return Gradebook(course, assignments, columns, rows, found)


def fmt_credit(value: float) -> str:
    """1, 0.5, 0.333: no trailing zeros, no float noise."""
    return f"{round(value, 4):g}"

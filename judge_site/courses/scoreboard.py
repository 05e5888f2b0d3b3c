"""An exam's or contest's scoreboard, ICPC-style: problems solved, then penalty minutes.

Why ICPC and not a speed geomean: an exam asks for correct code within the time; a speedup is
a benchmark figure that moves with the machine's load and is missing for problems without a
baseline, whereas the solved count and the penalty follow from verdicts and times alone, the
same on every rejudge. The penalty of a solved problem is the minutes from the student's own
start (windows start per student) to their first accepted Submit, plus PENALTY_PER_REJECT_MIN
for each judged Submit before it that was not accepted (IE never counts; a compile error
counts, as at ICPC finals it would not: here a CE is a real attempt of the student's code).

Only Submits made inside the student's own window count (a Run never does). A contest's
board freezes ``freeze_min`` before closes_at: while frozen (until staff unfreeze it) students
see the results of Submits made before the freeze and, per problem, how many came after
("pending"); staff see the live board.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone

from judge_site.courses import selectors
from judge_site.courses.exams import seat_end
from judge_site.courses.models import Exam, ExamKind, ExamSeat
from judge_site.submissions.models import Mode, Status, Submission, VerdictChoice

PENALTY_PER_REJECT_MIN = 20


@dataclass
class ProblemResult:
    solved: bool = False
    rejected: int = 0  # judged Submits before the first AC (all of them when unsolved)
    minutes: int = 0  # from the student's start to the first AC
    pending: int = 0  # Submits after the freeze (a frozen board shows only their count)

    @property
    def penalty(self) -> int:
        return self.minutes + PENALTY_PER_REJECT_MIN * self.rejected if self.solved else 0


@dataclass
class Row:
    username: str
    user_id: int
    results: list[ProblemResult] = field(default_factory=list)
    rank: int = 0

    @property
    def solved(self) -> int:
        return sum(1 for r in self.results if r.solved)

    @property
    def penalty(self) -> int:
        return sum(r.penalty for r in self.results)


@dataclass
class Board:
    exam: Exam
    problems: list  # Problem, in the exam's order
    rows: list[Row]
    frozen: bool
    freeze_at: datetime | None


def freeze_at(exam: Exam) -> datetime | None:
    """When a contest's board freezes; None for an exam or a freeze of 0 minutes."""
    if exam.kind != ExamKind.CONTEST or not exam.freeze_min:
        return None
    return exam.closes_at - timedelta(minutes=exam.freeze_min)


def is_frozen(exam: Exam, now: datetime) -> bool:
    moment = freeze_at(exam)
    return moment is not None and now >= moment and exam.unfrozen_at is None


def scoreboard(exam: Exam, *, live: bool, now: datetime | None = None) -> Board:
    """The board as a student (``live`` False: frozen while the contest is) or staff see it."""
    now = now or timezone.now()
    problems = [item.problem for item in exam.items.select_related("problem").order_by(
        "position", "id")]
    students = {m.user_id: m.user.get_username() for m in selectors.students_of(exam.course)}
    seats = [s for s in ExamSeat.objects.filter(exam=exam, user_id__in=list(students))
             if s.started_at is not None]
    frozen = not live and is_frozen(exam, now)
    cut = freeze_at(exam) if frozen else None
    windows = {s.user_id: (s.started_at, seat_end(exam, s.started_at, s.extra_min)) for s in seats}
    index = {p.pk: i for i, p in enumerate(problems)}
    rows = {uid: Row(students[uid], uid, [ProblemResult() for _ in problems]) for uid in windows}
    if windows:
        earliest = min(start for start, _ in windows.values())
        latest = max(end for _, end in windows.values())
        subs = (
            Submission.objects.filter(
                user_id__in=list(windows), problem_id__in=list(index), mode=Mode.SUBMIT,
                created_at__gte=earliest, created_at__lte=latest,
            )
            .exclude(verdict__in=[VerdictChoice.IE, ""])
            .filter(status=Status.DONE)
            .order_by("created_at", "id")
            .values_list("user_id", "problem_id", "verdict", "created_at")
        )
        for user_id, problem_id, verdict, created in subs:
            start, end = windows[user_id]
            if not start <= created <= end:
                continue
            result = rows[user_id].results[index[problem_id]]
            if cut is not None and created >= cut:
                result.pending += 1
            elif result.solved:
                continue
            elif verdict == VerdictChoice.AC:
                result.solved = True
                result.minutes = int((created - start).total_seconds() // 60)
            else:
                result.rejected += 1
    ordered = sorted(rows.values(), key=lambda r: (-r.solved, r.penalty, r.username))
    for i, row in enumerate(ordered):
        same = i and (row.solved, row.penalty) == (ordered[i - 1].solved, ordered[i - 1].penalty)
        row.rank = ordered[i - 1].rank if same else i + 1
    return Board(exam, problems, ordered, frozen, freeze_at(exam))

"""Reads on submissions: visibility, JSON shape, queue position and history (the boards:
leaderboards.py)."""

from __future__ import annotations

from typing import Any, TypeAlias

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, Func, IntegerField, QuerySet

from judge_site.catalog.models import Device, Problem
from judge_site.core import gates
from judge_site.core.choices import Mode, Status, VerdictChoice
from judge_site.core.prepared import PreparedQuery
from judge_site.core.roles import READ_SUBMISSIONS, can
from judge_site.submissions.models import Submission
from judge_site.submissions.scratch import scratch_json
from sandbox.grader.contracts import REJECTED_NEXT, Trust, rejected_because, unbelieved
from sandbox.grader.feedback import feedback_lines, tests_for_student
from sandbox.grader.manifest import feedback_of

AnyUser: TypeAlias = AbstractBaseUser | AnonymousUser


# A submission's page and the API read its problem's name and manifest (the feedback policy
# of hidden tests, the roofline), never its statement or package.
_PROBLEM_TEXT = ("problem__statement_md", "problem__starter_code", "problem__public_examples")


def reads_all_submissions(user: AnyUser) -> bool:
    """Staff allowed to read every student's code and hidden-test details."""
    return bool(getattr(user, "is_staff", False)) and can(user, READ_SUBMISSIONS)


def submission_visible_to(user: AnyUser) -> QuerySet[Submission]:
    """Submissions a user may open: their own; staff holding staff.read_submissions see
    everyone's (judge_site/core/roles.py)."""
    qs = Submission.objects.select_related("problem", "user").defer(*_PROBLEM_TEXT)
    if reads_all_submissions(user):
        return qs
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    return qs.filter(user_id=user.pk)


def submission_get_for(user: AnyUser, submission_id: int) -> Submission | None:
    """The submission when the user may open it: the above, or as an instructor of a course of
    its author's (a reader registered in judge_site/core/gates.py by the courses app)."""
    found = submission_visible_to(user).filter(pk=submission_id).first()
    if found is not None:
        return found
    other = Submission.objects.select_related("problem", "user").filter(pk=submission_id).first()
    return other if other is not None and gates.reads_submission(user, other) else None


_SUBMISSION_FIELDS = [f.attname for f in Submission._meta.concrete_fields]
_PROBLEM_FIELDS = [f.attname for f in Problem._meta.concrete_fields
                   if f"problem__{f.attname}" not in _PROBLEM_TEXT]
_OWN_SUBMISSION = PreparedQuery(
    lambda submission_id, user_id: Submission.objects.filter(pk=submission_id, user_id=user_id)
    .order_by("pk")
    .values_list(*_SUBMISSION_FIELDS, *(f"problem__{name}" for name in _PROBLEM_FIELDS))[:1],
    submission_id=int,
    user_id=int,
)


def own_submission(user: AnyUser, submission_id: int) -> Submission | None:
    """The user's own submission with its problem (as submission_visible_to reads them, the
    user aside) in one compiled query; None when it is not theirs."""
    if not getattr(user, "is_authenticated", False):
        return None
    row = _OWN_SUBMISSION.first(submission_id=submission_id, user_id=user.pk)
    if row is None:
        return None
    width = len(_SUBMISSION_FIELDS)
    submission = Submission.from_db("default", _SUBMISSION_FIELDS, row[:width])
    submission.problem = Problem.from_db("default", _PROBLEM_FIELDS, row[width:])
    return submission


def submission_queue_position(submission: Submission) -> int | None:
    """1-based position among the submissions queued for the same workers (the cpu or the gpu
    queue), oldest first; None when not queued."""
    if submission.status != Status.QUEUED:
        return None
    ahead = Submission.objects.filter(status=Status.QUEUED, created_at__lt=submission.created_at)
    # Without GPU workers every judging waits for the CPU workers (routing.judging_route).
    if settings.JUDGE_GPU_ENABLED and submission.problem.device == Device.GPU:
        ahead = ahead.filter(problem__device=Device.GPU)
    elif settings.JUDGE_GPU_ENABLED:
        ahead = ahead.exclude(problem__device=Device.GPU)
    return ahead.count() + 1


def submission_tests_for(viewer: AnyUser | None, submission: Submission) -> list[dict[str, Any]]:
    """The stored (complete) tests as ``viewer`` may see them: whole for staff who read every
    submission; for anyone else, hidden tests filtered by the problem's feedback policy (as
    ``manage.py judge`` shows them). The secret seed is never part of them. Each test also
    carries its ``feedback`` lines (sandbox.grader.feedback.feedback_lines)."""
    tests = list(submission.tests or [])
    if not submission.tests_filtered and not (
        viewer is not None and reads_all_submissions(viewer)
    ):
        tests = tests_for_student(tests, feedback_of(submission.problem.manifest or {}))
    # The feedback lines, computed once: the page's template and its script render them.
    return [{**t, "feedback": feedback_lines(t)} if isinstance(t, dict) else t for t in tests]


def benchmark_trust(bench: dict | None) -> str:
    """A stored benchmark's Trust value (sandbox.grader.contracts.Trust)."""
    trust = (bench or {}).get("trust")
    return trust if isinstance(trust, str) and trust else str(Trust.VERIFIED)


def benchmark_shown(bench: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored benchmark as anyone is shown it: a rejected timing with no figure of the
    submission's (``speedup``, ``submission_ms``, each shape's ``speedup``, ``submission_ms``
    and ``sol_fraction`` null: the grader stores none since it dropped them, and a result
    stored before has them dropped here), its keys kept."""
    if not bench or benchmark_trust(bench) != Trust.REJECTED:
        return bench
    shapes = [unbelieved(shape) for shape in bench.get("shapes") or []]
    return {**bench, "speedup": None, "submission_ms": None, "shapes": shapes}


def benchmark_rejection(bench: dict[str, Any] | None) -> dict[str, Any] | None:
    """Why a rejected timing was rejected, in plain words, and what to do next (for the
    result page); None for a believed timing."""
    if not bench or benchmark_trust(bench) != Trust.REJECTED:
        return None
    rule = bench.get("rule")
    return {"because": rejected_because(rule if isinstance(rule, str) else ""),
            "next": REJECTED_NEXT}


def _benchmark_json(bench: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored benchmark as shown (``benchmark_shown``) with the ``verified`` flag of
    ``manage.py judge --json`` derived from its ``trust`` (stored results keep ``trust``
    only): false for a rejected timing and for a contended one (shown, never verified)."""
    shown = benchmark_shown(bench)
    if not shown:
        return shown
    return {**shown, "verified": benchmark_trust(shown) in ("verified", "charged")}


def submission_to_json(submission: Submission, viewer: AnyUser | None = None) -> dict[str, Any]:
    """The API's shape: the keys of ``manage.py judge --json`` plus id, problem, mode, status;
    the tests as ``viewer`` may see them (no viewer: as a student)."""
    done = submission.status == Status.DONE
    return {
        "id": submission.pk,
        "problem": submission.problem.number,
        "problem_slug": submission.problem.slug,
        "mode": submission.mode,
        "status": submission.status,
        "verdict": submission.verdict or None,
        "tests": submission_tests_for(viewer, submission),
        "benchmark": _benchmark_json(submission.benchmark) if done else None,
        "environment": submission.environment or {},
        "message": submission.message,
        "problem_version": submission.problem_version,
        "queue_position": submission_queue_position(submission),
        "created_at": submission.created_at.isoformat(),
        **(scratch_json(submission) if submission.mode == Mode.SCRATCH else {}),
    }


def submission_history(
    user: AnyUser, *, problem: Problem | None = None, verdict: str = "", everyone: bool = False
) -> QuerySet[Submission]:
    """The user's submissions (staff with ``everyone``: all), newest first, filterable."""
    qs = submission_visible_to(user)
    if not (everyone and reads_all_submissions(user)):
        qs = qs.filter(user_id=user.pk)
    return _history_filter(qs, problem.pk if problem is not None else None, verdict).order_by(
        "-created_at"
    )


# What the history table shows of a submission (of the benchmark, its speedup).
HISTORY_FIELDS = {
    "pk": "pk", "created_at": "created_at", "mode": "mode", "status": "status",
    "verdict": "verdict", "username": "user__username", "number": "problem__number",
    "title": "problem__title", "speedup": "benchmark__speedup", "trust": "benchmark__trust",
}


def _history_filter(qs: QuerySet[Submission], problem_id: int | None, verdict: str) -> QuerySet[Submission]:
    qs = qs.exclude(mode=Mode.SCRATCH)  # scratch runs are the scratchpad's, not the history's
    if problem_id is not None:
        qs = qs.filter(problem_id=problem_id)
    if verdict in VerdictChoice.values:
        qs = qs.filter(verdict=verdict)
    elif verdict in (Status.QUEUED, Status.RUNNING):
        qs = qs.filter(status=verdict)
    return qs


def _own_history(problem_id: int | None, verdict: str, user_id: int) -> QuerySet[Submission]:
    return _history_filter(Submission.objects.filter(user_id=user_id), problem_id, verdict)


# A user's own history, compiled once per filter and page (judge_site/core/prepared.py).
_OWN_COUNT = PreparedQuery(
    lambda problem_id, verdict, user_id: _own_history(problem_id, verdict, user_id)
    .order_by()
    # COUNT as a plain function: an aggregate in values_list would GROUP BY the rows.
    .values_list(Func(F("pk"), function="COUNT", output_field=IntegerField())),
    user_id=int,
)
_OWN_ROWS = PreparedQuery(
    lambda problem_id, verdict, start, stop, user_id: _own_history(problem_id, verdict, user_id)
    .order_by("-created_at")
    .values_list(*HISTORY_FIELDS.values())[start:stop],
    user_id=int,
)


class OwnHistory:
    """A user's own submissions, newest first, filtered as ``submission_history`` filters
    them, as the rows of the history table (dicts of HISTORY_FIELDS): what a Paginator
    needs (``count()`` and slices), each one compiled query."""

    def __init__(self, user_id: int, problem: Problem | None = None, verdict: str = "") -> None:
        self.user_id = user_id
        self.problem_id = problem.pk if problem is not None else None
        # Only the filters that change the query are part of its shape.
        valid = verdict in VerdictChoice.values or verdict in (Status.QUEUED, Status.RUNNING)
        self.verdict = verdict if valid else ""

    def count(self) -> int:
        found = _OWN_COUNT.first(self.problem_id, self.verdict, user_id=self.user_id)
        return int(found[0]) if found else 0

    def __getitem__(self, window: slice) -> list[dict[str, Any]]:
        rows = _OWN_ROWS.rows(
            self.problem_id, self.verdict, window.start, window.stop, user_id=self.user_id
        )
        return [dict(zip(HISTORY_FIELDS, row, strict=True)) for row in rows]

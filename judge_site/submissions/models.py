"""Submissions and their judging state.

State changes are conditional UPDATEs in services.py (queued -> running -> done), guarded by
``attempt_token`` so a redelivered task can never judge twice or overwrite a newer result.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models

from judge_site.catalog.models import Problem
from judge_site.core.choices import Mode, Status, VerdictChoice
from judge_site.core.constraints import one_per
from judge_site.core.indexes import NullsLastIndex
from sandbox.grader.contracts import JudgeResult

# A "best verdict" ranks a user's judgings in the choices' order, best first: AC; a wrong answer
# is closer to a solution than a crash; IE is ours, never the student's.
VERDICT_ORDER: list[str] = list(VerdictChoice.values)


class Submission(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.SUBMIT)
    code = models.TextField()
    # A scratch run's script and what it printed (sandbox/grader/kinds/scratch.py); empty otherwise.
    script = models.TextField(blank=True)
    output = models.TextField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=3, choices=VerdictChoice.choices, blank=True)
    message = models.TextField(blank=True)
    # Per-test results as the engine reports them (TestResult.to_json()), appended live: the
    # complete results, hidden tests' details included; a student is shown them filtered by the
    # problem's feedback policy (selectors.submission_to_json).
    tests = models.JSONField(default=list, blank=True)
    benchmark = models.JSONField(null=True, blank=True)
    environment = models.JSONField(default=dict, blank=True)
    problem_version = models.CharField(max_length=64, blank=True)
    attempt_token = models.UUIDField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Liveness (services.submission_reap_stuck): a judging worker refreshes heartbeat_at every
    # few seconds while it judges, so a dead worker is noticed in seconds, not at the hard time
    # limit; queued_at is when the judging was last sent to the broker (None: at created_at).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    # The Celery node ("cpu@host") that claimed the running judging: the same worker, restarted
    # after dying mid-judging, gives it back at once instead of waiting for the heartbeat.
    worker = models.CharField(max_length=200, blank=True)
    # The address it was sent from: queued judgings are capped per address across accounts.
    client_ip = models.GenericIPAddressField(null=True, blank=True, db_index=True)
    # Made up by ``manage.py seed_demo`` (benchmarks, demos): ``seed_demo --remove`` deletes
    # exactly the rows marked so.
    synthetic = models.BooleanField(default=False)
    # The judging's secret seed (the hidden tests' inputs): a staff secret, never in the API;
    # ``manage.py judge --seed`` and a rejudge reuse it. None: judged before it was kept.
    secret_seed = models.BigIntegerField(null=True, blank=True)
    # True for results stored before the complete result was kept: their hidden tests were
    # already filtered for students at judging time (and are shown as stored).
    tests_filtered = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["user", "problem", "-created_at"]),
            models.Index(fields=["status", "created_at"]),
            # A user's history page, newest first, whatever the size of everyone's history.
            models.Index(fields=["user", "-created_at"], name="submission_user_recent"),
            models.Index(
                fields=["user"], name="submission_synthetic", condition=models.Q(synthetic=True)
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem_id} {self.status} {self.verdict}"

    @staticmethod
    def new_token() -> uuid.UUID:
        return uuid.uuid4()

    def judge_result(self) -> JudgeResult | None:
        """The engine's result as stored, read back typed; None while not judged."""
        if self.status != Status.DONE or not self.verdict:
            return None
        return JudgeResult.from_json({
            "verdict": self.verdict, "tests": self.tests, "benchmark": self.benchmark,
            "environment": self.environment, "message": self.message,
            "problem_version": self.problem_version, "secret_seed": self.secret_seed,
        })


def fields_from_result(result: JudgeResult, fallback_version: str = "") -> dict[str, Any]:
    """The Submission fields that store the engine's complete ``result`` (its to_json, once):
    verdict, tests, benchmark, environment, message, problem_version, secret_seed (and a
    scratch run's output)."""
    data = result.to_json()
    verdict = str(result.verdict)
    bench = data["benchmark"]
    if bench is not None:  # stored: ``trust`` only (the API derives the old flag again)
        bench = {k: v for k, v in bench.items() if k != "verified"}
    fields: dict[str, Any] = {
        "verdict": verdict if verdict in VerdictChoice.values else VerdictChoice.IE,
        "tests": data["tests"],
        "benchmark": bench,
        "environment": data["environment"] or {},
        "message": data["message"],
        "problem_version": data["problem_version"] or fallback_version,
        "secret_seed": result.secret_seed,
        "tests_filtered": False,
    }
    if result.output is not None:  # a scratch run: no verdict when its script ran to its end
        fields.update(verdict=result.shown_verdict or "", output=result.output)
    return fields


# ---- Aggregates, kept up to date as verdicts land (judge_site/submissions/aggregates.py) ----------
#
# Every page a student or the public sees reads these instead of scanning the submissions, so
# its cost does not grow with the history. aggregates.stats_refresh_pairs recomputes a (user,
# problem) row from that pair's submissions and applies the difference to the per-problem and
# per-user counters, in the transaction that wrote the verdict; aggregates.stats_reconcile recomputes
# everything (a periodic task) and repairs what differs.


class BestResult(models.Model):
    """A user's standing on one problem: their best result and counts, for the leaderboards,
    the problem list's marks, and the course pages. The row exists while the user has any
    submission of the problem (queued ones included: the problem is "tried").

    "Submit judgings" are finished Submit-mode submissions; Run judgings never rank."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="best_results"
    )
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="best_results")
    submissions = models.PositiveIntegerField(default=0)  # every mode and status
    runs = models.PositiveIntegerField(default=0)  # finished Run judgings
    judged = models.PositiveIntegerField(default=0)  # Submit judgings (IE included)
    accepted = models.PositiveIntegerField(default=0)  # Submit judgings with AC
    attempts = models.PositiveIntegerField(default=0)  # Submit judgings that were the
    # student's (IE, our fault, excluded)
    best_verdict = models.CharField(max_length=3, choices=VerdictChoice.choices, blank=True)
    first_ac_at = models.DateTimeField(null=True, blank=True)  # created_at of the first AC Submit
    first_ac_submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    attempts_to_ac = models.PositiveIntegerField(null=True, blank=True)  # attempts up to and
    # including the first AC
    # The accepted Submit with the highest speedup (ties: the earlier one): the board's row.
    best_speedup = models.FloatField(null=True, blank=True)
    best_submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    best_at = models.DateTimeField(null=True, blank=True)
    best_trust = models.CharField(max_length=10, blank=True)  # sandbox.grader.contracts.Trust
    # The best geometric mean of per-shape speedups over accepted Submits (benchmark.shapes;
    # the speedup itself where a result has no per-shape list), for a ranking by it.
    best_geomean = models.FloatField(null=True, blank=True)
    best_geomean_submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_submitted_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = one_per("one_best_result_per_pair", "user", "problem")
        indexes = [
            # The problem's leaderboard: accepted rows by speedup, ties by time (NullsLastIndex:
            # the same index on SQLite, whose CREATE INDEX refuses NULLS LAST).
            NullsLastIndex(
                models.F("problem"),
                models.F("best_speedup").desc(nulls_last=True),
                models.F("best_at"),
                models.F("user"),
                name="bestresult_board",
                condition=models.Q(accepted__gt=0),
            ),
            models.Index(fields=["problem", "user"], name="bestresult_problem_user"),
        ]

    def __str__(self) -> str:
        return f"best of {self.user_id} on {self.problem_id}: {self.best_verdict or '-'}"

    @property
    def solved(self) -> bool:
        return self.accepted > 0


class ProblemStats(models.Model):
    """Counters of one problem: the sums of its BestResult rows, kept by aggregates.py."""

    problem = models.OneToOneField(
        Problem, primary_key=True, on_delete=models.CASCADE, related_name="stats"
    )
    judged = models.PositiveIntegerField(default=0)  # Submit judgings
    accepted = models.PositiveIntegerField(default=0)  # of which AC
    solvers = models.PositiveIntegerField(default=0)  # users with an AC Submit
    tried = models.PositiveIntegerField(default=0)  # users with any submission
    # Bumped whenever the problem's leaderboard changes: cached boards are keyed by it.
    generation = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"stats of {self.problem_id}: {self.accepted}/{self.judged}"


class UserStats(models.Model):
    """Counters of one user over problems: the sums of their BestResult rows."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="stats"
    )
    solved = models.PositiveIntegerField(default=0)  # problems with an AC Submit
    tried = models.PositiveIntegerField(default=0)  # problems with any submission

    class Meta:
        indexes = [
            models.Index(
                fields=["-solved"], name="userstats_board", condition=models.Q(solved__gt=0)
            )
        ]

    def __str__(self) -> str:
        return f"stats of user {self.user_id}: {self.solved} solved"


class SyntheticUser(models.Model):
    """A user made up by ``manage.py seed_demo``; ``--remove`` deletes exactly these."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )

    def __str__(self) -> str:
        return f"synthetic user {self.user_id}"

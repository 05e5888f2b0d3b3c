"""Writes on submissions: create (validate + enqueue), judge (claim, progress, finish), reap.

State changes are conditional UPDATEs: ``queued -> running`` hands out a fresh
``attempt_token``; every later write is guarded by that token, so a redelivered or reaped
judging can never overwrite a newer one. Zero rows updated means someone else got there first.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from judge_site.catalog import selectors as catalog_selectors
from judge_site.catalog.models import Problem
from judge_site.catalog.services import code_text_problem
from judge_site.core import gates
from judge_site.core.queueing import enqueue
from judge_site.submissions import aggregates, scratch, signals
from judge_site.submissions.admission import SubmissionError, check_rate_and_caps
from judge_site.submissions.faults import (
    BROKER_ERRORS,
    DB_ERRORS,
    Heartbeat,
    db_retry,
    drop_connections,
)
from judge_site.submissions.models import (
    Mode,
    Status,
    Submission,
    VerdictChoice,
    fields_from_result,
)
from judge_site.submissions.outcomes import Claim, JudgeOutcome, Outcome
from judge_site.submissions.routing import judging_route, queue_for
from judge_site.worker.engine import judge_engine

logger = logging.getLogger(__name__)

# Infrastructure faults (a broken worker, a Docker hiccup, a worker that died) are retried this
# many times in all before the submission ends as IE.
MAX_ATTEMPTS = 3
RETRY_COUNTDOWN_S = 5


def _enqueue(submission_id: int, queue: str, countdown: float = 0) -> None:
    """Send the judging to the broker. A broker that is down is logged, not raised: the
    submission is queued in the database, and the reaper sends it again (submission_reap_stuck)."""
    try:
        enqueue("submissions.judge_submission", (submission_id,), queue=queue, countdown=countdown)
    except BROKER_ERRORS as exc:
        logger.warning(
            "submission %s: the broker is unavailable (%s: %s); the reaper will send it again",
            submission_id, type(exc).__name__, exc,
        )  # fmt: skip


def submission_create(
    user: AbstractBaseUser | AnonymousUser,
    problem: Problem,
    code: str,
    mode: str,
    *,
    address: str | None = None,
    script: str | None = None,
) -> Submission:
    """Validate and store a queued submission; its judging is enqueued after commit.

    ``address`` is the client's (judge_site.core.inputs.client_ip): judgings waiting or
    running are capped per user (JUDGE_MAX_QUEUED_PER_USER) and per address across accounts
    (JUDGE_MAX_QUEUED_PER_ADDRESS). ``script``: a scratch run's own lines (mode scratch only,
    then required); a scratch run is rate-limited and capped like a Run, and counts for no
    statistic. Raises SubmissionError naming the field (user, problem, code, mode, script,
    rate) when refused; in that case nothing is stored.
    """
    if not getattr(user, "is_authenticated", False):
        raise SubmissionError("user", "log in to run or submit", status=401)
    if mode not in Mode.values:
        raise SubmissionError(
            "mode", f"mode must be 'run', 'submit' or 'scratch', not {mode!r}"
        )
    refused = scratch.script_refused(mode, script)
    if refused:
        raise SubmissionError("script", refused)
    if not catalog_selectors.problem_readable(user, problem):  # an exam's: inside its window
        raise SubmissionError("problem", f"problem {problem.number} is not published", status=404)
    refused = scratch.problem_refuses_scratch(problem) if mode == Mode.SCRATCH else ""
    if refused:
        raise SubmissionError("mode", refused)
    gate = gates.problem_gate(user, problem)  # an exam window (judge_site/courses/exams.py)
    if gate is not None and not gate.open:
        raise SubmissionError("window", gate.message, status=403)
    if not isinstance(code, str) or not code.strip():
        raise SubmissionError("code", "code is empty")
    refused = code_text_problem(code)
    if refused:
        raise SubmissionError("code", refused)
    route = judging_route(problem)
    if route.queue is None:  # no worker of this site could ever take it
        raise SubmissionError("problem", route.note)

    User = get_user_model()
    with transaction.atomic():
        # Lock the user's row so that concurrent requests of one user count each other.
        User.objects.select_for_update().filter(pk=user.pk).first()
        check_rate_and_caps(user.pk, address)
        submission = Submission.objects.create(
            user_id=user.pk,
            problem=problem,
            mode=mode,
            code=code,
            script=(script or "").replace("\r\n", "\n"),  # a scratch run's only
            status=Status.QUEUED,
            client_ip=address,
        )
        if mode != Mode.SCRATCH:  # a scratch run counts for nothing, "tried" included
            aggregates.stats_refresh_pair(user.pk, problem.pk)  # the problem is "tried" from now on
        queue = queue_for(problem)
        sid = submission.pk
        transaction.on_commit(lambda: _enqueue(sid, queue))
    return submission


# The process's engine (judge_site/worker/engine.py), reached through two seams that tests
# replace (a fake engine: no torch, no Docker, no package on disk).
def _load_package(package_dir: str) -> Any:
    """The package in this host's folder ``package_dir``."""
    from sandbox.grader.package import load_package

    return load_package(package_dir)


def package_of(package_dir: str, version: str) -> Any:
    """The package a judging uses: this host's folder (``_load_package``), or, on a worker host
    with JUDGE_PACKAGE_SOURCE, exactly content hash ``version`` (JudgeEngine.package)."""
    return judge_engine().package(package_dir, version, load=_load_package)


def _judge_source(package: Any, source: str, mode: str, on_progress: Callable[[Any], None],
                  secret_seed: int | None = None, **scratch: str) -> Any:
    """``scratch``: ``script=`` for a scratch run (passed only then)."""
    return judge_engine().judge(package, source, mode, on_progress=on_progress,
                                secret_seed=secret_seed, **scratch)


def _claim(submission: Submission) -> uuid.UUID | Claim:
    """queued -> running for this worker, unless the user already has a running judging.

    Returns the new attempt token, Claim.BUSY when the user has another running judging, or
    Claim.TAKEN when someone else claimed (or finished) it.
    """
    User = get_user_model()
    token = Submission.new_token()
    with transaction.atomic():
        # The id only: a worker host's database role may not read password hashes.
        User.objects.select_for_update().filter(pk=submission.user_id).only("pk").first()
        busy = (
            Submission.objects.filter(user_id=submission.user_id, status=Status.RUNNING)
            .exclude(pk=submission.pk)
            .exists()
        )
        if busy:
            return Claim.BUSY
        now = timezone.now()
        claimed = Submission.objects.filter(pk=submission.pk, status=Status.QUEUED).update(
            status=Status.RUNNING,
            attempt_token=token,
            attempts=F("attempts") + 1,
            started_at=now,
            heartbeat_at=now,
            worker=judge_engine().worker_name,
            tests=[],
            tests_filtered=False,
            benchmark=None,
            verdict="",
            message="",
        )
    return token if claimed else Claim.TAKEN

# Live progress: a judging's finished tests are written at most this often (and with the verdict).
PROGRESS_EVERY_S = 0.25


def _hand_off(user_id: int, judged_id: int) -> None:
    """A judging of this user ended (or went back to the queue): send their oldest queued one.

    One judging per user runs at a time: another of theirs that a worker took meanwhile was
    left queued ("busy") without a new message, and this is its message. Its own first message
    may still be waiting too: the second to arrive finds it claimed and does nothing. A hand-off
    lost with a dying worker is made good by the reaper."""
    try:
        nxt = db_retry(
            "hand-off",
            lambda: (
                Submission.objects.filter(user_id=user_id, status=Status.QUEUED)
                .exclude(pk=judged_id)  # sent back with a countdown after an engine fault
                .select_related("problem")
                .order_by("created_at")
                .first()
            ),
            wait_s=30,
        )
    except DB_ERRORS:
        return  # the reaper sends it
    if nxt is not None:
        _enqueue(nxt.pk, queue_for(nxt.problem))


def submission_judge(submission_id: int) -> JudgeOutcome:
    """Judge one submission (called by the Celery task). Safe to call twice, and again after
    any fault: the claim lets one call judge, the attempt token guards every later write."""
    submission = db_retry(
        f"submission {submission_id}",
        lambda: Submission.objects.select_related("problem").filter(pk=submission_id).first(),
    )
    if submission is None or submission.status != Status.QUEUED:
        return JudgeOutcome(Outcome.SKIPPED, "not queued")
    picked = time.monotonic()  # phases: the queue wait ends here
    queue_wait_s = (timezone.now() - (submission.queued_at or submission.created_at)).total_seconds()
    token = db_retry(f"submission {submission_id}: claim", lambda: _claim(submission))
    if token is Claim.BUSY:
        # No new message: the user's running judging hands off to this one when it ends.
        return JudgeOutcome(Outcome.BUSY, "another judging of this user is running")
    if token is Claim.TAKEN:
        return JudgeOutcome(Outcome.SKIPPED, "claimed by someone else")
    try:
        with Heartbeat(submission.pk, token):
            return _judge_claimed(submission, token, {"queue_wait": queue_wait_s}, picked)
    finally:
        _hand_off(submission.user_id, submission.pk)


def _judge_claimed(
    submission: Submission,
    token: Any,
    phases: dict[str, float] | None = None,
    picked: float | None = None,
) -> JudgeOutcome:
    """``phases``/``picked``: the site's share of the result's per-phase breakdown (seconds,
    environment["phases"]: queue wait, prepare = claim + package, progress writes, save)."""
    sid = submission.pk
    site: dict[str, float] = dict(phases or {})
    picked = picked if picked is not None else time.monotonic()
    attempts = db_retry(
        f"submission {sid}",
        lambda: Submission.objects.values_list("attempts", flat=True).get(pk=sid),
    )
    mine = Submission.objects.filter(pk=sid, attempt_token=token, status=Status.RUNNING)
    progress: list[dict[str, Any]] = []

    last_write = [float("-inf")]

    def on_progress(test: Any) -> None:
        progress.append(test.to_json())
        start = time.monotonic()
        # The first test at once (the page shows the judging has begun), then at most every
        # PROGRESS_EVERY_S: one UPDATE per test was a sixth of a Run's time on the worker.
        if start - last_write[0] < PROGRESS_EVERY_S:
            return
        last_write[0] = start
        try:
            mine.update(tests=list(progress))
            site["progress_writes"] = site.get("progress_writes", 0.0) + time.monotonic() - start
        except DB_ERRORS as exc:  # live progress is best effort; the verdict's write waits
            logger.warning("submission %s: progress not saved (%s)", sid, exc)
            drop_connections()

    def retry_or_fail(exc: Exception, final_message: str) -> JudgeOutcome:
        """An infrastructure fault: queued again with a countdown, or IE after MAX_ATTEMPTS."""
        if attempts < MAX_ATTEMPTS:
            requeued = db_retry(
                f"submission {sid}: requeue",
                lambda: mine.update(
                    status=Status.QUEUED,
                    attempt_token=None,
                    started_at=None,
                    heartbeat_at=None,
                    queued_at=timezone.now(),
                    tests=[],
                ),
            )
            if requeued:
                _enqueue(sid, queue_for(submission.problem), RETRY_COUNTDOWN_S * attempts)
            return JudgeOutcome(Outcome.RETRY, str(exc))
        _finish_internal(sid, token, final_message)
        return JudgeOutcome(Outcome.FAILED, str(exc))

    # An exam's submission is judged against the version frozen when the exam opened.
    package_dir, version = db_retry(f"submission {sid}: pin", lambda: gates.package_pin(
        submission)) or (submission.problem.package_dir, submission.problem.version)
    try:
        package = package_of(package_dir, version)
    except Exception as exc:  # a broken package is ours, and retrying will not fix it
        logger.exception("submission %s: cannot load the package", sid)
        if getattr(exc, "transient", False):  # the main host out of reach (a worker host)
            return retry_or_fail(exc, f"internal error after {attempts} attempts: {exc}")
        _finish_internal(sid, token, f"internal error: the problem package: {exc}")
        return JudgeOutcome(Outcome.FAILED, str(exc))
    site["prepare"] = time.monotonic() - picked
    try:
        scratch = {"script": submission.script} if submission.mode == Mode.SCRATCH else {}
        result = _judge_source(package, submission.code, submission.mode, on_progress, **scratch)
    except ImproperlyConfigured as exc:  # a configuration error: retrying cannot help
        logger.error("submission %s: the judge is misconfigured: %s", sid, exc)
        _finish_internal(sid, token, "internal error: the judge is misconfigured")
        return JudgeOutcome(Outcome.FAILED, str(exc))
    except Exception as exc:
        logger.exception("submission %s: the engine failed (attempt %s)", sid, attempts)
        return retry_or_fail(
            exc, f"internal error after {attempts} attempts: {type(exc).__name__}"
        )

    fields = fields_from_result(result, submission.problem.version)  # the result's JSON, once
    note = judging_route(submission.problem).note
    if note:
        fields["environment"] = {**fields["environment"], "routing": note}
    fields["environment"] = _with_phases(fields["environment"], site)
    saving = time.monotonic()
    finished = db_retry(
        f"submission {sid}: verdict",
        lambda: _finish(mine, submission, status=Status.DONE, finished_at=timezone.now(), **fields),
    )
    if not finished:
        logger.warning("submission %s: judged, but the claim was lost meanwhile (reaped)", sid)
        return JudgeOutcome(Outcome.SKIPPED, "lost the claim while judging (reaped?)")
    # The verdict's own write, added after it (best effort: the verdict is already visible).
    saved = {"save": time.monotonic() - saving}
    try:
        Submission.objects.filter(pk=sid, attempt_token=token).update(
            environment=_with_phases(fields["environment"], saved)
        )
    except DB_ERRORS:
        drop_connections()
    logger.info("submission %s: judged %s (attempt %s)", sid, fields["verdict"], attempts)
    return JudgeOutcome(Outcome.JUDGED, fields["verdict"])


def _with_phases(environment: dict[str, Any], site: dict[str, float]) -> dict[str, Any]:
    """``environment`` with the site's phases (seconds) added to the engine's."""
    phases = dict(environment.get("phases") or {})
    phases.update({name: round(seconds, 4) for name, seconds in site.items()})
    return {**environment, "phases": phases}


def _finish(guard: Any, submission: Submission, **fields: Any) -> int:
    """The final verdict: one conditional UPDATE (``guard``, the claim) and, in the same
    transaction, the aggregates of the submission's (user, problem) (aggregates.py)."""
    with transaction.atomic():
        finished = guard.update(**fields)
        if finished:
            aggregates.stats_refresh_pair(submission.user_id, submission.problem_id)
            signals.verdict_written.send(sender=Submission, submission=submission)
    return finished


def _finish_internal(submission_id: int, token: Any, message: str) -> int:
    guard = Submission.objects.filter(pk=submission_id, attempt_token=token, status=Status.RUNNING)

    def write() -> int:
        sub = Submission.objects.only("user", "problem").filter(pk=submission_id).first()
        if sub is None:  # deleted meanwhile
            return 0
        return _finish(guard, sub, status=Status.DONE, verdict=VerdictChoice.IE,
                       message=message, finished_at=timezone.now())

    return db_retry(f"submission {submission_id}: IE", write)


"""Aggregates of the submissions (BestResult, ProblemStats, UserStats), kept in step with them.

One rule keeps them right: whenever a submission of a (user, problem) pair is created, judged,
rejudged or deleted, ``stats_refresh_pairs`` recomputes that pair's BestResult from the pair's
own submissions (a bounded read: one student's history on one problem), under a row lock, and
adds the difference between the old and the new row to the problem's and the user's counters.
It runs in the transaction that wrote the change, so a page never sees a verdict without its
aggregates. Deleting a user removes their rows first (``stats_forget_user``), so the counters
lose exactly what the rows held. ``stats_reconcile`` recomputes everything from the
submissions and repairs what differs (a periodic task; the tests prove both agree).

Pages read only these rows, so their cost does not grow with the history.
"""

from __future__ import annotations

import contextvars
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from judge_site.submissions.models import (
    BestResult,
    ProblemStats,
    Submission,
    UserStats,
)
from judge_site.submissions.pair_state import EMPTY, PAIR_FIELDS, PairState, pair_state
from judge_site.submissions.pair_state import SUB_COLUMNS as _SUB_COLUMNS  # the columns read

logger = logging.getLogger(__name__)

CHUNK_PAIRS = 400  # pairs per batch in bulk refreshes (seed_demo, reconcile)

_muted: contextvars.ContextVar[bool] = contextvars.ContextVar("stats_muted", default=False)


@contextmanager
def stats_muted() -> Iterator[None]:
    """Inside: deleting submissions does not refresh their pairs one by one (a bulk delete
    refreshes them itself, once, with stats_refresh_pairs)."""
    token = _muted.set(True)
    try:
        yield
    finally:
        _muted.reset(token)


def stats_is_muted() -> bool:
    return _muted.get()


def stats_refresh_pair(user_id: int, problem_id: int) -> bool:
    """The hook of every write to a submission: see stats_refresh_pairs."""
    return stats_refresh_pairs([(user_id, problem_id)]) > 0


def stats_refresh_pairs(pairs: Iterable[tuple[int, int]]) -> int:
    """Recompute the BestResult of each (user_id, problem_id) from its submissions and add the
    differences to ProblemStats and UserStats; returns how many rows changed. Call it inside
    the transaction that changed the submissions. Safe under concurrency: each pair's row is
    locked; a row two transactions create at once is retried after the first commits."""
    todo = sorted(set(pairs))
    changed = 0
    for start in range(0, len(todo), CHUNK_PAIRS):
        chunk = todo[start:start + CHUNK_PAIRS]
        for attempt in range(3):
            try:
                with transaction.atomic():
                    changed += _refresh_chunk(chunk)
                break
            except IntegrityError:  # another transaction created one of the rows meanwhile
                if attempt == 2:
                    raise
    return changed


def _refresh_chunk(pairs: list[tuple[int, int]]) -> int:
    wanted = set(pairs)
    users = {u for u, _ in pairs}
    problems = {p for _, p in pairs}
    rows = {
        (r.user_id, r.problem_id): r
        for r in BestResult.objects.select_for_update()
        .filter(user_id__in=users, problem_id__in=problems)
        .order_by("user_id", "problem_id")
        if (r.user_id, r.problem_id) in wanted
    }
    subs: dict[tuple[int, int], list[tuple[Any, ...]]] = defaultdict(list)
    for values in (
        Submission.objects.filter(user_id__in=users, problem_id__in=problems)
        .order_by("created_at", "pk")
        .values_list(*_SUB_COLUMNS)
    ):
        if (values[1], values[2]) in wanted:
            subs[(values[1], values[2])].append(values)

    deltas = _Deltas()
    now = timezone.now()
    creates: list[BestResult] = []
    updates: list[BestResult] = []
    deletes: list[int] = []
    for pair in pairs:
        row = rows.get(pair)
        old, new = PairState.of_row(row), pair_state(subs.get(pair, []))
        if old == new:
            continue
        deltas.add(pair, old, new)
        if new.submissions == 0:
            if row is not None:
                deletes.append(row.pk)
        elif row is None:
            creates.append(BestResult(user_id=pair[0], problem_id=pair[1], **asdict(new)))
        else:
            for name, value in asdict(new).items():
                setattr(row, name, value)
            row.updated_at = now  # bulk_update does not touch auto_now fields
            updates.append(row)
    if creates:
        BestResult.objects.bulk_create(creates)
    if updates:
        BestResult.objects.bulk_update(updates, [*PAIR_FIELDS, "updated_at"])
    if deletes:
        BestResult.objects.filter(pk__in=deletes).delete()
    deltas.apply()
    return len(creates) + len(updates) + len(deletes)


class _Deltas:
    """Differences of counters per problem and per user, applied in key order (two
    transactions take the counter rows' locks in the same order: no deadlock)."""

    def __init__(self) -> None:
        self.problems: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
        self.users: dict[int, list[int]] = defaultdict(lambda: [0, 0])

    def add(self, pair: tuple[int, int], old: PairState, new: PairState) -> None:
        user_id, problem_id = pair
        tried = (new.submissions > 0) - (old.submissions > 0)
        solved = new.solved - old.solved
        p = self.problems[problem_id]
        p[0] += new.judged - old.judged
        p[1] += new.accepted - old.accepted
        p[2] += solved
        p[3] += tried
        p[4] |= old.board() != new.board()
        if solved or tried:
            u = self.users[user_id]
            u[0] += solved
            u[1] += tried

    def apply(self) -> None:
        for pid in sorted(self.problems):
            judged, accepted, solvers, tried, bump = self.problems[pid]
            if judged or accepted or solvers or tried or bump:
                _add(ProblemStats, pid, judged=judged, accepted=accepted, solvers=solvers,
                     tried=tried, generation=int(bool(bump)))
        for uid in sorted(self.users):
            solved, tried = self.users[uid]
            if solved or tried:
                _add(UserStats, uid, solved=solved, tried=tried)


def _add(model: Any, pk: int, **amounts: int) -> None:
    """Add ``amounts`` to the counters of the row ``pk`` of ``model``, creating it at zero."""
    change = {name: F(name) + value for name, value in amounts.items() if value}
    if not change or model.objects.filter(pk=pk).update(**change):
        return
    model.objects.bulk_create([model(pk=pk)], ignore_conflicts=True)
    model.objects.filter(pk=pk).update(**change)


def stats_forget_user(user_id: int) -> None:
    """Before a user is deleted: their rows leave the problems' counters, then go (the
    cascade would delete them without a word to the counters)."""
    deltas = _Deltas()
    rows = list(BestResult.objects.select_for_update().filter(user_id=user_id).order_by("pk"))
    for row in rows:
        deltas.add((user_id, row.problem_id), PairState.of_row(row), EMPTY)
    deltas.users.clear()  # the user's own counters go with the user
    BestResult.objects.filter(pk__in=[r.pk for r in rows]).delete()
    deltas.apply()


@dataclass(frozen=True)
class Reconciled:
    """What stats_reconcile found wrong (and repaired): rows of each table."""

    pairs: int
    problems: int
    users: int

    @property
    def total(self) -> int:
        return self.pairs + self.problems + self.users


def stats_reconcile() -> Reconciled:
    """Recompute every aggregate from the submissions and repair what differs.

    Pairs first (each refresh corrects its row and moves the counters by the difference), then
    the counters themselves against the sums of the rows, which also repairs a counter that
    drifted on its own. Cost: one pass over the submissions (run it periodically, not per page).
    """
    pairs = set(Submission.objects.values_list("user_id", "problem_id").distinct())
    pairs |= set(BestResult.objects.values_list("user_id", "problem_id"))
    # A transaction per chunk of pairs (outside an atomic block): judgings wait for one chunk's
    # locks at most, and take them in the same order (pairs, problems, users): no deadlock.
    fixed_pairs = stats_refresh_pairs(pairs)
    with transaction.atomic():
        fixed_problems = _reconcile_problems()
        fixed_users = _reconcile_users()
    result = Reconciled(fixed_pairs, fixed_problems, fixed_users)
    if result.total:
        logger.warning("stats: reconcile repaired %s", result)
    return result


def expected_problem_counters() -> dict[int, tuple[int, int, int, int]]:
    """problem id -> (judged, accepted, solvers, tried), summed from the BestResult rows."""
    sums: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for pid, judged, accepted in BestResult.objects.values_list(
        "problem_id", "judged", "accepted"
    ):
        s = sums[pid]
        s[0] += judged
        s[1] += accepted
        s[2] += accepted > 0
        s[3] += 1
    return {pid: (s[0], s[1], s[2], s[3]) for pid, s in sums.items()}


def expected_user_counters() -> dict[int, tuple[int, int]]:
    """user id -> (solved, tried), summed from the BestResult rows."""
    sums: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for uid, accepted in BestResult.objects.values_list("user_id", "accepted"):
        sums[uid][0] += accepted > 0
        sums[uid][1] += 1
    return {uid: (s[0], s[1]) for uid, s in sums.items()}


def _reconcile_problems() -> int:
    # Locked before summing: a verdict that lands meanwhile adds its difference after this.
    have = {
        ps.pk: ps for ps in ProblemStats.objects.select_for_update().order_by("pk")
    }
    want = expected_problem_counters()
    fixed = 0
    for pid in sorted(set(want) | set(have)):
        target = want.get(pid, (0, 0, 0, 0))
        row = have.get(pid)
        now = (row.judged, row.accepted, row.solvers, row.tried) if row else (0, 0, 0, 0)
        if now == target:
            continue
        fixed += 1
        judged, accepted, solvers, tried = target
        ProblemStats.objects.update_or_create(
            pk=pid, defaults={"judged": judged, "accepted": accepted, "solvers": solvers,
                              "tried": tried, "generation": (row.generation + 1) if row else 1},
        )
    return fixed


def _reconcile_users() -> int:
    have = {
        us.pk: (us.solved, us.tried)
        for us in UserStats.objects.select_for_update().order_by("pk")
    }
    want = expected_user_counters()
    fixed = 0
    for uid in sorted(set(want) | set(have)):
        target = want.get(uid, (0, 0))
        if have.get(uid, (0, 0)) == target:
            continue
        fixed += 1
        UserStats.objects.update_or_create(
            pk=uid, defaults={"solved": target[0], "tried": target[1]}
        )
    first = ProblemStats.objects.order_by("pk").values_list("pk", flat=True).first()
    if fixed and first is not None:  # the overall board is keyed by the problems' generations
        ProblemStats.objects.filter(pk=first).update(generation=F("generation") + 1)
    return fixed

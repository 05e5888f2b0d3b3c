"""What a BestResult row holds, computed from one (user, problem) pair's submissions: a pure
function of their rows (``pair_state``), which aggregates.py writes and compares."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from judge_site.core.choices import Mode, Status, VerdictChoice
from judge_site.submissions.models import VERDICT_ORDER, BestResult
from sandbox.grader.contracts import Trust

# "Best verdict" of a pair: the best Submit verdict in models.VERDICT_ORDER.
_RANK = {v: i for i, v in enumerate(VERDICT_ORDER)}


@dataclass(frozen=True)
class PairState:
    """What a BestResult row holds, computed from the pair's submissions."""

    submissions: int = 0
    runs: int = 0
    judged: int = 0
    accepted: int = 0
    attempts: int = 0
    best_verdict: str = ""
    first_ac_at: datetime | None = None
    first_ac_submission_id: int | None = None
    attempts_to_ac: int | None = None
    best_speedup: float | None = None
    best_submission_id: int | None = None
    best_at: datetime | None = None
    best_trust: str = ""
    best_geomean: float | None = None
    best_geomean_submission_id: int | None = None
    last_submitted_at: datetime | None = None

    @property
    def solved(self) -> bool:
        return self.accepted > 0

    def board(self) -> tuple[Any, ...]:
        """What the problem's leaderboard shows of this pair (a change bumps its generation)."""
        return (self.solved, self.best_speedup, self.best_at, self.best_trust,
                self.best_submission_id, self.best_geomean)

    @classmethod
    def of_row(cls, row: BestResult | None) -> PairState:
        if row is None:
            return EMPTY
        return cls(**{f.name: getattr(row, f.name) for f in fields(cls)})


EMPTY = PairState()
PAIR_FIELDS = [f.name for f in fields(PairState)]

# The columns of a submission a pair's state needs (the benchmark's few keys, not its text).
SUB_COLUMNS = (
    "pk", "user_id", "problem_id", "mode", "status", "verdict", "created_at",
    "benchmark__speedup", "benchmark__trust", "benchmark__shapes", "environment__device",
)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _trust(trust: Any) -> str:
    """The benchmark's Trust value (sandbox.grader.contracts.Trust)."""
    return trust if isinstance(trust, str) and trust else str(Trust.VERIFIED)


def _geomean(speedup: float | None, shapes: Any) -> float | None:
    """Geometric mean of the per-shape speedups (benchmark.shapes), else the speedup."""
    if isinstance(shapes, list) and shapes:
        values = [_number(s.get("speedup")) if isinstance(s, dict) else None for s in shapes]
        if all(v is not None and v > 0 for v in values):
            return math.exp(sum(math.log(v) for v in values if v) / len(values))
    return speedup


def pair_state(rows: Iterable[tuple[Any, ...]]) -> PairState:
    """The state of one pair from its submissions (tuples of SUB_COLUMNS), oldest first."""
    n = runs = judged = accepted = attempts = 0
    best_rank = len(VERDICT_ORDER)
    first_ac: tuple[int, datetime, int] | None = None  # pk, created_at, attempts so far
    best: tuple[float | None, int, datetime, str] | None = None  # speedup, pk, at, trust
    geo: tuple[float, int] | None = None
    # Like with like: once an accepted Submit was timed on a GPU (device "cuda: <name>"), CPU
    # timings of the pair (Triton's interpreter) are neither its best nor ranked beside it.
    rows = [(*r[:10], str(r[10] if len(r) > 10 else "").startswith("cuda")) for r in rows]
    on_gpu = any(r[10] and r[3] == Mode.SUBMIT and r[5] == VerdictChoice.AC for r in rows)
    last = None
    for pk, _u, _p, mode, status, verdict, created_at, speedup, trust, shapes, gpu in rows:
        if mode == Mode.SCRATCH:  # a scratch run counts for nothing, not even "tried"
            continue
        n += 1
        last = created_at if last is None or created_at > last else last
        if status != Status.DONE:
            continue
        if mode != Mode.SUBMIT:
            runs += 1
            continue
        judged += 1
        attempts += verdict != VerdictChoice.IE
        best_rank = min(best_rank, _RANK.get(verdict, len(VERDICT_ORDER)))
        if verdict != VerdictChoice.AC:
            continue
        accepted += 1
        if first_ac is None:
            first_ac = (pk, created_at, attempts)
        if _trust(trust) == Trust.REJECTED:
            # A rejected timing has no speedup and ranks nowhere (a result stored before the
            # grader dropped its figure still holds one): the pair's row is "rejected" only
            # while no accepted Submit has a believed timing, and then it is off the board.
            if best is None:
                best = (None, pk, created_at, str(Trust.REJECTED))
            continue
        if on_gpu and not gpu:
            continue
        speed = _number(speedup)
        # Strictly better only: among equal speedups the earlier submission keeps the row.
        if best is None or best[3] == Trust.REJECTED or (speed or 0.0) > (best[0] or 0.0):
            best = (speed, pk, created_at, _trust(trust))
        mean = _geomean(speed, shapes)
        if mean is not None and (geo is None or mean > geo[0]):
            geo = (mean, pk)
    return PairState(
        submissions=n, runs=runs, judged=judged, accepted=accepted, attempts=attempts,
        best_verdict=VERDICT_ORDER[best_rank] if best_rank < len(VERDICT_ORDER) else "",
        first_ac_at=first_ac[1] if first_ac else None,
        first_ac_submission_id=first_ac[0] if first_ac else None,
        attempts_to_ac=first_ac[2] if first_ac else None,
        best_speedup=best[0] if best else None,
        best_submission_id=best[1] if best else None,
        best_at=best[2] if best else None,
        best_trust=best[3] if best else "",
        best_geomean=geo[0] if geo else None,
        best_geomean_submission_id=geo[1] if geo else None,
        last_submitted_at=last,
    )

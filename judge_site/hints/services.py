"""Which hints a student sees, recorded when first due; the staff's counts.

A hint is due when the ladder rule of sandbox/grader/hints.py says so; it is recorded (HintShown)
the first time a page asks, and every later page shows it again. A hint is the author's text
and nothing else: for a check covering a hidden case the student is told "a hidden test",
never its name, inputs or expected values.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from django.db import IntegrityError, transaction
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.core import gates
from judge_site.core.prepared import UNREAD, PreparedQuery
from judge_site.hints.models import HintSettings, HintShown
from judge_site.submissions.models import Mode, Status, Submission, VerdictChoice
from sandbox.grader.hints import (
    Attempt,
    CaseInfo,
    case_index,
    check_is_public,
    code_hash,
    failing_names,
    next_rung_due,
)
from sandbox.grader.manifest import HintSpec, PackageError, parse_hints


@dataclass(frozen=True)
class ShownHint:
    check: str  # the check's label for the student: the public case or "a hidden test"
    rung: int
    of: int
    text: str


@functools.lru_cache(maxsize=256)
def _cases(package_dir: str, version: str) -> tuple[CaseInfo, ...]:
    del version  # part of the cache key only: a new version re-reads tests.py
    try:
        return tuple(case_index(Path(package_dir) / "tests.py"))
    except (OSError, SyntaxError, PackageError):
        return ()


# The admin's overrides as (enabled, after, cooldown_s), None without a HintSettings row; a
# page that read them with the problem passes them in (catalog.selectors.problem_page).
Override = tuple[bool, int | None, float | None] | None


def problem_spec(problem: Problem, override: Override = UNREAD) -> HintSpec:
    """The package's ``[hints]`` with the admin's overrides applied."""
    try:
        spec = parse_hints(problem.manifest or {})
    except PackageError:
        return HintSpec(enabled=False)
    if override is UNREAD:
        override = (
            HintSettings.objects.filter(problem=problem)
            .values_list("enabled", "after", "cooldown_s")
            .first()
        )
    if override is None:
        return spec
    enabled, after, cooldown_s = override
    return HintSpec(
        enabled=spec.enabled and enabled,
        after=after or spec.after,
        cooldown_s=spec.cooldown_s if cooldown_s is None else cooldown_s,
        ladders=spec.ladders,
    )


def _label(check: str, cases: list[CaseInfo]) -> str:
    if check.startswith(("fn:", "tag:")):
        fn = check[3:] if check.startswith("fn:") else ""
        return f"the tests of {fn}" if fn else "some of the tests"
    return check if check_is_public(check, cases) else "a hidden test"


# The student's failed Submits (the ladder counts them) and the rungs shown, compiled once
# (judge_site/core/prepared.py): the problem page asks on every view.
_FAILED_SUBMITS = PreparedQuery(
    lambda user_id, problem_id: Submission.objects.filter(
        user_id=user_id, problem_id=problem_id, mode=Mode.SUBMIT, status=Status.DONE
    )
    .exclude(verdict__in=[VerdictChoice.AC, VerdictChoice.IE, VerdictChoice.CE, ""])
    .order_by("created_at")
    .values_list("code", "created_at", "tests"),
    user_id=int,
    problem_id=int,
)
_SHOWN = PreparedQuery(
    lambda user_id, problem_id: HintShown.objects.filter(user_id=user_id, problem_id=problem_id)
    .order_by("rung")
    .values_list("check_key", "rung", "shown_at"),
    user_id=int,
    problem_id=int,
)


class _Shown(NamedTuple):
    check_key: str
    rung: int
    shown_at: datetime


def hints_for(user: Any, problem: Problem, override: Override = UNREAD) -> list[ShownHint]:
    """The hints this student has been shown on this problem, newly due ones recorded first
    (``override``: the admin's settings when the caller read them, see problem_spec)."""
    if not getattr(user, "is_authenticated", False):
        return []
    gate = gates.problem_gate(user, problem)  # no hints inside an exam window
    if gate is not None and not gate.hints:
        return []
    spec = problem_spec(problem, override)
    if not spec.enabled or not spec.ladders:
        return []
    cases = list(_cases(problem.package_dir, problem.version))
    if not cases:
        return []
    subs = _FAILED_SUBMITS.rows(user_id=user.pk, problem_id=problem.pk)
    attempts = [Attempt(code_hash(code), at, frozenset(failing_names(tests or []))) for code, at, tests in subs]
    shown: dict[str, list[Any]] = {}  # _Shown, or the HintShown rows recorded below
    for row in map(_Shown._make, _SHOWN.rows(user_id=user.pk, problem_id=problem.pk)):
        shown.setdefault(row.check_key, []).append(row)
    now = timezone.now()
    out: list[ShownHint] = []
    for ladder in spec.ladders:
        rows = shown.get(ladder.check, [])
        # At most one rung per visit: the next needs its own failures and cool-down.
        if next_rung_due(
            ladder.check, cases, attempts, [r.shown_at for r in rows], len(ladder.hints),
            after=spec.after, cooldown=timedelta(seconds=spec.cooldown_s), now=now,
        ):
            try:
                with transaction.atomic():
                    rows.append(HintShown.objects.create(
                        user_id=user.pk, problem=problem, check_key=ladder.check, rung=len(rows),
                        submits_before=len(attempts),
                    ))
            except IntegrityError:  # another page recorded it a moment ago
                pass
        label = _label(ladder.check, cases)
        for row in rows:
            if row.rung < len(ladder.hints):
                out.append(ShownHint(label, row.rung + 1, len(ladder.hints), ladder.hints[row.rung]))
    return out


def staff_table(problem: Problem) -> list[dict[str, Any]]:
    """Per check and rung: how often shown, how many of those students got AC afterwards, and
    in how many Submits after the hint (mean)."""
    rows = list(HintShown.objects.filter(problem=problem).order_by("check_key", "rung"))
    if not rows:
        return []
    subs = (
        Submission.objects.filter(problem=problem, mode=Mode.SUBMIT, status=Status.DONE)
        .exclude(verdict__in=[VerdictChoice.IE, ""])
        .order_by("created_at")
        .values_list("user_id", "created_at", "verdict")
    )
    per_user: dict[int, list[tuple[Any, str]]] = {}
    for user_id, at, verdict in subs:
        per_user.setdefault(user_id, []).append((at, verdict))
    table: dict[tuple[str, int], dict[str, Any]] = {}
    for row in rows:
        entry = table.setdefault(
            (row.check_key, row.rung), {"check": row.check_key, "rung": row.rung + 1, "shown": 0, "ac": 0, "_after": []}
        )
        entry["shown"] += 1
        after = [v for at, v in per_user.get(row.user_id, []) if at > row.shown_at]
        if VerdictChoice.AC in after:
            entry["ac"] += 1
            entry["_after"].append(after.index(str(VerdictChoice.AC)) + 1)
    out = []
    for entry in table.values():
        counts = entry.pop("_after")
        entry["mean_attempts_to_ac"] = round(sum(counts) / len(counts), 1) if counts else None
        out.append(entry)
    return out


def problem_page_part(request: Any, problem: Problem, page: Any, gate: Any) -> dict[str, Any]:
    """The hints' part of a problem's page (judge_site/core/page_parts.py)."""
    return {"hints": hints_for(request.user, problem, page.hint_override)}

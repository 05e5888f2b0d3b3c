"""A term's worth of made-up history, for benchmarks and demos (and its removal).

    manage.py seed_demo --submissions N --users U     # add U users and N judged submissions
    manage.py seed_demo --remove                      # delete exactly what seed_demo added

The submissions are finished judgings of the published problems with a realistic mix (4 in 5
Submit, 2 in 5 accepted, a benchmark with per-shape speedups on each accepted Submit), spread
over the last 90 days. They are stored in bulk, then the aggregates are brought up to date by
the code that keeps them for real judgings (aggregates.stats_refresh_pairs), batch by batch. Every
row is marked (Submission.synthetic, SyntheticUser): --remove deletes those and nothing else,
and the aggregates follow.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from judge_site.catalog.models import Problem
from judge_site.submissions import aggregates
from judge_site.submissions.models import (
    Mode,
    Status,
    Submission,
    SyntheticUser,
)

BATCH = 5000  # submissions per transaction
USERNAME = "seed-{:06d}"
# The verdicts of a Submit (weights in %); a Run is AC or WA in the same proportion.
VERDICTS = [("AC", 40), ("WA", 30), ("RE", 10), ("TLE", 8), ("CE", 6), ("MLE", 3),
            ("OLE", 2), ("IE", 1)]
SPAN = timedelta(days=90)


@contextmanager
def _created_at_as_given() -> Iterator[None]:
    """bulk_create keeps the created_at we give (auto_now_add would set every row to now)."""
    field = Submission._meta.get_field("created_at")
    saved = field.auto_now_add  # type: ignore[union-attr]
    field.auto_now_add = False  # type: ignore[union-attr]
    try:
        yield
    finally:
        field.auto_now_add = saved  # type: ignore[union-attr]


class Command(BaseCommand):
    help = "Add made-up users and judged submissions (or --remove them), aggregates kept."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--submissions", type=int, default=0, help="how many to add")
        parser.add_argument("--users", type=int, default=0, help="new users they come from")
        parser.add_argument("--remove", action="store_true",
                            help="delete every user and submission seed_demo added")
        parser.add_argument("--seed", type=int, default=None, help="random seed (repeatable)")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        if options["remove"]:
            gone_users, subs = remove_seeded()
            self.stdout.write(f"removed {subs} submissions and {gone_users} users "
                              f"in {time.monotonic() - started:.1f} s")
            return
        n, u = options["submissions"], options["users"]
        if n < 0 or u < 0 or (n and not u):
            raise CommandError("--submissions N needs --users U (U >= 1): the users they come from")
        rng = random.Random(options["seed"])
        users = make_users(u)
        problems = list(Problem.objects.filter(published=True).order_by("number"))
        if n and not problems:
            raise CommandError("no published problem: run `manage.py sync_problems` first")
        # Each user's submissions go in with theirs (a batch is a group of users), so that each
        # (user, problem) is brought up to date once: linear in N.
        per_user = [0] * len(users)
        for _ in range(n):
            per_user[rng.randrange(len(users))] += 1
        done = 0
        group: list[int] = []
        for user_id, count in zip(users, per_user, strict=True):
            group += [user_id] * count
            if len(group) >= BATCH or user_id == users[-1]:
                with transaction.atomic():
                    seed_batch(rng, group, problems)
                done += len(group)
                group = []
                self.stdout.write(f"  {done}/{n} submissions")
        self.stdout.write(f"seeded {n} submissions from {len(users)} new users "
                          f"in {time.monotonic() - started:.1f} s")


def make_users(count: int) -> list[int]:
    """``count`` new users who cannot log in (no password); their ids."""
    if not count:
        return []
    User = get_user_model()
    start = SyntheticUser.objects.count()
    names = [USERNAME.format(start + i) for i in range(count)]
    taken = list(User.objects.filter(username__in=names).values_list("username", flat=True)[:3])
    if taken:
        raise CommandError(f"usernames already taken: {', '.join(taken)} (seed_demo --remove?)")
    password = make_password(None)  # unusable
    with transaction.atomic():
        User.objects.bulk_create(
            [User(username=name, password=password) for name in names], batch_size=1000
        )
        ids = list(User.objects.filter(username__in=names).values_list("pk", flat=True))
        SyntheticUser.objects.bulk_create([SyntheticUser(user_id=pk) for pk in ids],
                                          batch_size=1000)
    return ids


def _verdict(rng: random.Random) -> str:
    pick = rng.uniform(0, 100)
    for verdict, weight in VERDICTS:
        pick -= weight
        if pick <= 0:
            return verdict
    return "WA"


def _benchmark(rng: random.Random) -> dict[str, Any]:
    shapes: list[dict[str, Any]] = []
    for i in range(rng.choice([1, 2, 3])):
        speedup = math.exp(rng.gauss(0.0, 0.35))
        base = rng.uniform(0.5, 20.0)
        shapes.append({"name": f"shape{i}", "speedup": round(speedup, 4),
                       "baseline_ms": round(base, 3), "submission_ms": round(base / speedup, 3)})
    mean = math.exp(sum(math.log(s["speedup"]) for s in shapes) / len(shapes))
    trust = "charged" if rng.random() < 0.05 else "verified"
    return {
        "speedup": round(mean, 4), "submission_ms": sum(s["submission_ms"] for s in shapes),
        "baseline_ms": sum(s["baseline_ms"] for s in shapes), "repetitions": 50,
        "shape": ", ".join(s["name"] for s in shapes), "trust": trust,
        "rule": "", "note": "seed_demo", "shapes": shapes,
    }


def _tests(rng: random.Random, verdict: str, mode: str) -> list[dict[str, Any]]:
    names = ["public_small", "public_pad"] + (["hidden_1", "hidden_2"] if mode == "submit" else [])
    failing = rng.randrange(len(names)) if verdict != "AC" else -1
    out = []
    for i, name in enumerate(names):
        if i > failing >= 0:
            break
        out.append({"name": name, "public": name.startswith("public"),
                    "verdict": verdict if i == failing else "AC", "message": "",
                    "time_ms": round(rng.uniform(1, 40), 2)})
    return out


def seed_batch(rng: random.Random, authors: list[int], problems: list[Problem]) -> None:
    """A finished submission by each of ``authors`` (a user id, repeated for each of theirs),
    of random problems, then their aggregates."""
    now = timezone.now()
    # Early problems are tried more (a course goes front to back).
    weights = [1.0 / (1 + 0.15 * i) for i in range(len(problems))]
    rows = []
    for author in authors:
        problem = rng.choices(problems, weights)[0]
        mode = Mode.SUBMIT if rng.random() < 0.8 else Mode.RUN
        verdict = _verdict(rng)
        if mode == Mode.RUN and verdict not in ("AC", "WA"):
            verdict = "AC" if verdict in ("OLE", "IE") else "WA"
        created = now - SPAN * rng.random()
        rows.append(Submission(
            user_id=author, problem=problem, mode=mode,
            code=f"# seed_demo\ndef solution(*args):\n    return {rng.randrange(10**6)}\n",
            status=Status.DONE, verdict=verdict, tests=_tests(rng, verdict, mode),
            benchmark=_benchmark(rng) if verdict == "AC" and mode == Mode.SUBMIT else None,
            environment={"backend": "seed_demo"}, problem_version=problem.version,
            attempts=1, created_at=created, started_at=created,
            finished_at=created + timedelta(seconds=rng.uniform(1, 20)), synthetic=True,
            message="internal error: seed_demo" if verdict == "IE" else "",
        ))
    with _created_at_as_given():
        Submission.objects.bulk_create(rows, batch_size=1000)
    aggregates.stats_refresh_pairs({(s.user_id, s.problem_id) for s in rows})


def remove_seeded() -> tuple[int, int]:
    """Delete every synthetic submission and user; the aggregates follow. (users, submissions)"""
    User = get_user_model()
    with transaction.atomic():
        seeded = Submission.objects.filter(synthetic=True)
        pairs = set(seeded.values_list("user_id", "problem_id").distinct())
        with aggregates.stats_muted():  # one refresh per pair below, not one per submission
            _, deleted = seeded.only("user", "problem").delete()
        subs = deleted.get(Submission._meta.label, 0)
        aggregates.stats_refresh_pairs(pairs)
        ids = list(SyntheticUser.objects.values_list("user_id", flat=True))
        users = 0
        for start in range(0, len(ids), 500):
            _, deleted = User.objects.filter(pk__in=ids[start:start + 500]).delete()
            users += deleted.get(User._meta.label, 0)
    return users, subs

"""Similarity on a seeded class (issue 40, "Done when"): 200 students x 10 real problems, each
student's code written independently (judge_site/similarity/seeded.py), 5 copied pairs
planted (names renamed, functions reordered, the file reformatted). ``manage.py similarity
--json`` finds exactly those 5, as its top 5, and no independent pair at the default threshold.

The class is written straight into the database (bulk_create). The time the command took is
printed (its own stderr line), never asserted: scripts/bench_similarity reports the figure.
"""

from __future__ import annotations

import io
import json
import time
from datetime import timedelta
from typing import Any

from course_cast import make_assignment, make_course, quick_user
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from judge_cast import make_problem

from judge_site.courses.models import Membership, Role
from judge_site.similarity.seeded import seeded_class
from judge_site.submissions.models import Submission

KEYS = {"a", "b", "problem", "score", "a_submission", "b_submission"}


def _seed_database(seeded: Any) -> Any:
    instructor = quick_user("ines")
    User = get_user_model()
    users = User.objects.bulk_create(
        User(username=name, password="!unusable") for name in seeded.students
    )
    problems = [make_problem(p.number, starter_code=p.starter, slug=f"p{p.number}")
                for p in seeded.problems]
    course = make_course(instructor)
    joined = timezone.now() - timedelta(days=30)
    Membership.objects.bulk_create(
        Membership(course=course, user=u, role=Role.STUDENT) for u in users
    )
    Membership.objects.filter(course=course, role=Role.STUDENT).update(joined_at=joined)
    assignment = make_assignment(course, problems)
    by_number = {p.number: p for p in problems}
    at = timezone.now() - timedelta(days=1)
    Submission.objects.bulk_create(
        Submission(user=u, problem=by_number[p.number], code=seeded.code[(u.username, p.number)],
                   mode="submit", status="done", verdict="AC")
        for u in users for p in seeded.problems
    )
    Submission.objects.filter(problem__in=problems).update(created_at=at)
    return assignment


def test_it_finds_the_planted_pairs_as_its_top_5_and_no_independent_pair(db: Any) -> None:
    seeded = seeded_class(students=200)
    assignment = _seed_database(seeded)
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    call_command("similarity", "--assignment", str(assignment.pk), "--json", stdout=out, stderr=err)
    print(f"similarity of 200 students x 10 problems: {time.perf_counter() - started:.1f} s")

    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert all(set(row) == KEYS for row in rows)
    found = {(r["problem"], frozenset((r["a"], r["b"]))) for r in rows}
    planted = {(p.problem, frozenset((p.original, p.copier))) for p in seeded.planted}
    assert found == planted, rows  # the 5 copies, and none of the independent pairs
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    ids = dict(Submission.objects.filter(pk__in=[r["a_submission"] for r in rows]
                                         + [r["b_submission"] for r in rows])
               .values_list("pk", "user__username"))
    assert all(ids[r["a_submission"]] == r["a"] and ids[r["b_submission"]] == r["b"] for r in rows)

"""Similarity's scoring, the code it compares, and ``manage.py similarity``'s contract."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from course_cast import ago, join, later, make_assignment, make_course, quick_user
from django.core.management import CommandError, call_command
from similarity_cast import COPY, ORIGINAL, OTHER, accepted

from judge_site.courses.models import Extension
from judge_site.similarity import compare, fingerprints, selectors

STARTER = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"
KEYS = {"a", "b", "problem", "score", "a_submission", "b_submission"}


def _score(one: str, two: str, starter: str = STARTER) -> float:
    report = compare.compare(
        [compare.ProblemInput(48, starter, [compare.Entry("u1", 1, one), compare.Entry("u2", 2, two)])],
        threshold=0.0,
    )
    return report.matches[0].score if report.matches else 0.0


def test_it_sees_through_renamed_names_reordered_functions_and_reformatting() -> None:
    assert fingerprints.normalize(ORIGINAL).text != fingerprints.normalize(COPY).text
    assert _score(ORIGINAL, COPY) > 0.9
    assert _score(ORIGINAL, OTHER) < 0.2


def test_it_drops_comments_docstrings_layout_and_trailing_commas() -> None:
    plain = "def f(a, b):\n    return g(a, b)\n"
    noisy = 'def f(a,b):\n    """Doc."""\n    # why\n    return g(\n        a,\n        b,\n    )  # done\n'
    assert fingerprints.normalize(plain).text == fingerprints.normalize(noisy).text


def test_it_keeps_what_a_copier_cannot_rename() -> None:
    zeros = fingerprints.normalize("x = torch.zeros(n)\n").text
    ones = fingerprints.normalize("x = torch.ones(n)\n").text
    renamed = fingerprints.normalize("y = torch.zeros(m)\n").text
    assert zeros != ones and zeros == renamed


def test_it_reads_any_text_without_raising() -> None:
    for text in ["", "def (:\n  '''unterminated", "\x00\ufffd €€ ```", "x = '" * 50]:
        fingerprints.normalize(text)
        fingerprints.document(1, text)


def test_the_starter_code_never_counts_as_shared() -> None:
    starter = ORIGINAL
    edited = ORIGINAL.replace('raise ValueError(f"bad side {side}")', "return None, None")
    assert _score(ORIGINAL, edited, starter=starter) == 0.0
    assert _score(ORIGINAL, edited, starter="") > 0.9


def test_code_most_of_the_class_shares_is_boilerplate() -> None:
    shared = "def check(x, name):\n" + "".join(
        f"    if x.dim() != {i} or x.shape[{i}] < x.shape[-1]:\n        raise ValueError(name)\n"
        for i in range(6))
    entries = [compare.Entry(f"u{i}", i, shared + code)
               for i, code in enumerate([ORIGINAL, OTHER] + [f"def own{i}(q):\n    return q.sum(dim={i}) * {i} + q.mean() ** 2 - len(q) // max(q.shape)\n" * 2 for i in range(10)])]
    report = compare.compare([compare.ProblemInput(48, "", entries)], threshold=0.5)
    assert report.boilerplate[48]  # the shared helper's fingerprints, left out
    assert not [m for m in report.matches if {m.a, m.b} == {"u0", "u1"}]


def test_the_pair_view_marks_shared_runs_and_not_the_starter() -> None:
    left, right = compare.shared_segments(ORIGINAL, COPY, fingerprints.starter_hashes(STARTER))
    assert "".join(s.text for s in left) == ORIGINAL and "".join(s.text for s in right) == COPY
    assert any(s.shared and "torch.full" in s.text for s in left)
    assert compare.shared_share(left) > 0.6
    alone, _ = compare.shared_segments(ORIGINAL, OTHER, set())
    assert compare.shared_share(alone) < 0.2


@pytest.fixture
def course_of_three(db: Any, problem: Any) -> Any:
    ines = quick_user("ines")
    students = [quick_user(n) for n in ("ann", "ben", "cid")]
    course = make_course(ines, "LLM internals", *students)
    assignment = make_assignment(course, [problem], due=later(days=1), late_until=later(days=2))
    return assignment, students


def test_it_compares_each_students_latest_accepted_submit_in_their_window(
    course_of_three: Any, problem: Any
) -> None:
    assignment, (ann, ben, cid) = course_of_three
    accepted(ann, problem, OTHER, ago(hours=5))
    latest = accepted(ann, problem, ORIGINAL, ago(hours=1))
    accepted(ann, problem, "x = 1", ago(minutes=5), verdict="WA")
    accepted(ann, problem, "y = 2", ago(minutes=4), mode="run")
    ben_sub = accepted(ben, problem, COPY, ago(hours=2))
    accepted(cid, problem, ORIGINAL, later(days=3))  # after every window: not compared
    entries = selectors.assignment_inputs(assignment)[0].entries
    assert [(e.user, e.submission_id) for e in entries] == [("ann", latest.pk), ("ben", ben_sub.pk)]
    Extension.objects.create(assignment=assignment, user=cid, due_at=later(days=3, hours=1))
    assert [e.user for e in selectors.assignment_inputs(assignment)[0].entries] == ["ann", "ben", "cid"]


def test_it_never_reads_what_a_student_made_before_joining(db: Any, problem: Any) -> None:
    ines, dan, eve = quick_user("ines"), quick_user("dan"), quick_user("eve")
    course = make_course(ines, "LLM internals", dan)
    assignment = make_assignment(course, [problem])
    join(course, eve, ago(hours=1))
    accepted(dan, problem, ORIGINAL, ago(hours=3))
    accepted(eve, problem, COPY, ago(hours=3))
    accepted(ines, problem, COPY, ago(hours=3))  # an instructor's own code is not compared
    assert [e.user for e in selectors.assignment_inputs(assignment)[0].entries] == ["dan"]


def _command(*args: str) -> tuple[list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("similarity", *args, stdout=out, stderr=err)
    return out.getvalue().splitlines(), err.getvalue()


def test_the_command_prints_one_json_object_per_pair_per_line(
    course_of_three: Any, problem: Any
) -> None:
    assignment, (ann, ben, cid) = course_of_three
    a = accepted(ann, problem, ORIGINAL, ago(hours=1))
    b = accepted(ben, problem, COPY, ago(hours=1))
    c = accepted(cid, problem, ORIGINAL.replace("out.dtype", "weight.dtype"), ago(hours=1))
    lines, summary = _command("--assignment", str(assignment.pk), "--json", "--threshold", "0.5")
    assert summary.startswith("3 submissions, 3 pairs scored, 3 at or above 0.5, in ")
    rows = [json.loads(line) for line in lines]
    assert all(set(r) == KEYS for r in rows) and len(rows) == 3
    assert rows[0] == {"a": "ann", "b": "cid", "problem": 48, "score": rows[0]["score"],
                       "a_submission": a.pk, "b_submission": c.pk}
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert all(0 <= r["score"] <= 1 for r in rows)
    assert {(r["a"], r["b"]) for r in rows} == {("ann", "cid"), ("ann", "ben"), ("ben", "cid")}
    assert {r["b_submission"] for r in rows if r["b"] == "ben"} == {b.pk}
    lines, _ = _command("--assignment", str(assignment.pk), "--json", "--threshold", "1")
    assert [(r["a"], r["b"], r["score"]) for r in map(json.loads, lines)] == [("ann", "cid", 1.0)]
    table, _ = _command("--assignment", str(assignment.pk))
    assert table[0].split()[:3] == ["score", "problem", "a"] and "ann" in table[1]


@pytest.mark.parametrize("threshold", ["1.5", "-0.1", "nan", "lots"])
def test_the_command_refuses_a_bad_threshold_and_says_the_range(
    course_of_three: Any, threshold: str
) -> None:
    assignment, _ = course_of_three
    with pytest.raises(CommandError, match="from 0 to 1"):
        _command("--assignment", str(assignment.pk), "--threshold", threshold)


def test_the_commands_help_says_json_lines() -> None:
    from judge_site.similarity.management.commands.similarity import Command

    text = " ".join(Command().create_parser("manage.py", "similarity").format_help().split())
    assert "JSON Lines: one object per pair per line" in text and "--threshold X" in text


def test_the_command_says_how_to_find_an_assignments_id(db: Any) -> None:
    with pytest.raises(CommandError, match="No assignment 999999: .*assignments"):
        _command("--assignment", "999999")

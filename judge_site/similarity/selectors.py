"""Reads for similarity: who may see an assignment's similarity, and which code is compared.

The code compared (docs/courses.md, "Similarity"): per student and problem of the assignment,
the student's latest accepted Submit made at or after they joined the course and no later than
the end of their own window (the late window's end, else the due date; an extension moves it).
A student with no such submission for a problem is not compared on it. Only what the course may
read is read (courses.grading.counted_submissions: the trust map's rule).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404

from judge_site.core.roles import READ_SUBMISSIONS, can
from judge_site.courses import grading, selectors
from judge_site.courses.models import Assignment, AssignmentProblem, Extension, Role
from judge_site.similarity.compare import Entry, ProblemInput
from judge_site.similarity.models import SimilarityPair, SimilarityRun
from judge_site.submissions.models import Submission, VerdictChoice


def assignment_for_staff(user: Any, course_id: int, assignment_id: int) -> Assignment:
    """The assignment when ``user`` may see its similarity (students' code): an instructor of
    its course, or site staff who may read every student's code (staff.read_submissions, as on
    the staff pages). A course's student, and staff without that permission, get
    PermissionDenied (403); anyone else Http404 (the course's existence is not confirmed)."""
    membership = selectors.membership_of(user, course_id)
    instructor = membership is not None and membership.role == Role.INSTRUCTOR
    if not instructor and not (getattr(user, "is_staff", False) and can(user, READ_SUBMISSIONS)):
        if getattr(user, "is_staff", False):
            raise PermissionDenied(
                "Similarity shows students' code: it needs the permission "
                f"{READ_SUBMISSIONS} (the teaching assistant group holds it); ask an "
                "administrator."
            )
        if membership is None:
            raise Http404("no such course")
        raise PermissionDenied("only the course's instructors may see similarity")
    assignment = (
        Assignment.objects.select_related("course")
        .filter(pk=assignment_id, course_id=course_id).first()
    )
    if assignment is None:
        raise Http404("no such assignment")
    return assignment


def assignment_inputs(assignment: Assignment) -> list[ProblemInput]:
    """The code to compare, per problem of the assignment in its order (three queries)."""
    problems = [
        item.problem for item in
        AssignmentProblem.objects.select_related("problem").filter(assignment=assignment)
        .order_by("position", "id")
    ]
    extensions = {e.user_id: e for e in Extension.objects.filter(assignment=assignment)}
    rows = (
        grading.counted_submissions(assignment.course, [p.pk for p in problems])
        .filter(verdict=VerdictChoice.AC)
        .order_by("user_id", "problem_id", "-created_at", "-id")
        .values_list("id", "user_id", "problem_id", "created_at")
    )
    chosen: dict[tuple[int, int], int] = {}
    ends: dict[int, Any] = {}
    for sub_id, user_id, problem_id, created_at in rows:
        if (user_id, problem_id) in chosen:
            continue
        if user_id not in ends:
            due, late_until = grading.student_window(assignment, extensions.get(user_id))
            ends[user_id] = late_until or due
        if created_at <= ends[user_id]:
            chosen[(user_id, problem_id)] = sub_id
    code = dict(Submission.objects.filter(pk__in=chosen.values()).values_list("id", "code"))
    names = dict(
        get_user_model().objects.filter(pk__in={u for u, _ in chosen}).values_list("id", "username")
    )
    inputs = []
    for problem in problems:
        entries = sorted(
            (Entry(names[u], sub_id, code[sub_id])
             for (u, p), sub_id in chosen.items() if p == problem.pk),
            key=lambda e: e.user,
        )
        inputs.append(ProblemInput(problem.number, problem.starter_code, entries))
    return inputs


def latest_run(assignment: Assignment) -> SimilarityRun | None:
    return SimilarityRun.objects.filter(assignment=assignment).order_by("-created_at", "-id").first()


def run_pairs(run: SimilarityRun, limit: int = 500) -> list[SimilarityPair]:
    """The run's pairs, highest score first, with both students and the problem."""
    return list(
        SimilarityPair.objects.filter(run=run)
        .select_related("problem", "a_submission__user", "b_submission__user")
        .order_by("-score", "problem__number", "id")[:limit]
    )


def pair_of(assignment: Assignment, pair_id: int) -> SimilarityPair:
    pair = (
        SimilarityPair.objects.select_related(
            "run", "problem", "a_submission__user", "b_submission__user")
        .filter(pk=pair_id, run__assignment=assignment).first()
    )
    if pair is None:
        raise Http404("no such pair")
    return pair

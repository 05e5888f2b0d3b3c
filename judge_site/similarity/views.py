"""Similarity pages of an assignment, for its course's instructors and site staff only (a
student of the course gets 403, anyone else 404): the ranked pairs with a button that starts a
run, the run's progress as JSON (polled by similarity.js), and one pair side by side."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from judge_site.courses import selectors as course_selectors
from judge_site.courses.models import Assignment, Role
from judge_site.similarity import compare, fingerprints, selectors, services
from judge_site.similarity.models import SimilarityRun

View = Callable[..., HttpResponse]


def staff_view(view: View) -> View:
    """Pass the assignment to a view its caller may use (selectors.assignment_for_staff); a
    refusal is a 403 that says why and what to do, a stranger a 404."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, course_id: int, assignment_id: int, *args: Any,
                **kwargs: Any) -> HttpResponse:
        try:
            assignment = selectors.assignment_for_staff(request.user, course_id, assignment_id)
        except PermissionDenied as exc:
            return HttpResponseForbidden(f"403 forbidden: {exc}\n",
                                         content_type="text/plain; charset=utf-8")
        return view(request, assignment, *args, **kwargs)

    return wrapped


def _teaches(request: HttpRequest, assignment: Assignment) -> bool:
    """The caller is one of the course's instructors (site staff may not be: the course's own
    pages, linked for instructors, would answer them 404)."""
    membership = course_selectors.membership_of(request.user, assignment.course_id)
    return membership is not None and membership.role == Role.INSTRUCTOR


@staff_view
@require_GET
def assignment_similarity(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    run = selectors.latest_run(assignment)
    pairs = selectors.run_pairs(run) if run is not None and run.status == "done" else []
    return render(request, "similarity/assignment.html", {
        "course": assignment.course, "assignment": assignment, "run": run, "pairs": pairs,
        "is_instructor": _teaches(request, assignment),
        "default_threshold": compare.DEFAULT_THRESHOLD,
    })


@staff_view
@require_POST
def run_start(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    try:
        threshold = services.parse_threshold(request.POST.get("threshold"))
        services.run_start(request.user, assignment, threshold)
    except services.SimilarityError as exc:
        messages.error(request, exc.message)
    return redirect("similarity:assignment", course_id=assignment.course_id,
                    assignment_id=assignment.pk)


@staff_view
@require_GET
def run_progress(request: HttpRequest, assignment: Assignment, run_id: int) -> JsonResponse:
    run = SimilarityRun.objects.filter(pk=run_id, assignment=assignment).first()
    if run is None:
        return JsonResponse({"error": "no such run: reload the page"}, status=404)
    response = JsonResponse(services.progress_of(run))
    response["Cache-Control"] = "no-store"
    return response


@staff_view
@require_GET
def pair_detail(request: HttpRequest, assignment: Assignment, pair_id: int) -> HttpResponse:
    pair = selectors.pair_of(assignment, pair_id)
    excluded = set(pair.run.boilerplate.get(str(pair.problem.number), []))
    excluded |= fingerprints.starter_hashes(pair.problem.starter_code)
    left, right = compare.shared_segments(pair.a_submission.code, pair.b_submission.code, excluded)
    return render(request, "similarity/pair.html", {
        "course": assignment.course, "assignment": assignment, "pair": pair,
        "is_instructor": _teaches(request, assignment),
        "left": left, "right": right,
        "left_share": compare.shared_share(left), "right_share": compare.shared_share(right),
    })

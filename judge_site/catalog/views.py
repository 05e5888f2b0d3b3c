"""Catalog pages: the problem list and the problem page (statement, editor, Run/Submit)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from judge_site.catalog import selectors, services
from judge_site.catalog.models import Difficulty
from judge_site.core import gates, page_parts
from judge_site.core.fragments import content_key
from sandbox.grader.manifest import stated_limits


@require_GET
def problem_list(request: HttpRequest) -> HttpResponse:
    difficulty = request.GET.get("difficulty", "")
    tag = request.GET.get("tag", "")
    status = request.GET.get("status", "") if request.user.is_authenticated else ""
    listed = selectors.problems_listed(request.user)
    rows = selectors.problem_list(
        request.user, listed, difficulty=difficulty, tag=tag, status=status
    )
    tags = selectors.problem_tags(listed)
    current = {"difficulty": difficulty, "tag": tag, "status": status}
    return render(
        request,
        "catalog/problem_list.html",
        {
            "rows": rows,
            # The table is cached under exactly what it shows (never stale, marks included).
            "table_key": content_key([
                (r.problem.number, r.problem.title, r.problem.published, r.problem.difficulty,
                 r.problem.chapter, r.problem.tags, r.solved, r.tried, r.accepted, r.judged)
                for r in rows
            ]),
            "difficulties": Difficulty.values,
            "tags": tags,
            "statuses": selectors.STATUS_FILTERS,
            "current": current,
            "filters_key": content_key((tags, current, request.user.is_authenticated)),
        },
    )


@require_GET
def problem_detail(request: HttpRequest, number: int) -> HttpResponse:
    page = selectors.problem_page(request.user, number)
    if page is None:
        raise Http404("no such problem")
    problem = page.problem
    gate = gates.problem_gate(request.user, problem)  # an exam window (courses/exams.py)
    if gate is not None and not gate.open:
        return render(request, "catalog/problem_gated.html",
                      {"problem": problem, "gate": gate}, status=403)
    return render(
        request,
        "catalog/problem_detail.html",
        {
            "problem": problem,
            "limits": stated_limits(problem.manifest or {}),
            "code": selectors.draft_code(request.user, problem) or problem.starter_code,
            # The package's notes.md (tensor or practice): shown after the user's accepted Submit.
            # Inside an exam window neither the notes nor the statistics are shown.
            "solution_notes": None if gate else selectors.solution_notes(request.user, problem),
            "exam_gate": gate,
            # Statistics, where it is judged, the judging to resume, hints: from the apps above.
            **page_parts.problem_page_parts(request, problem, page, gate),
        },
    )


@require_POST
def problem_draft(request: HttpRequest, number: int) -> HttpResponse:
    """Keep the editor's code as the user's draft (the page saves it as they type); ``reset``
    deletes it. JSON answers: 204 when kept, 4xx with a message saying what to do."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "log in to keep a draft"}, status=401)
    problem = selectors.problem_get(request.user, number)
    if problem is None:
        return JsonResponse({"error": "problem: no such problem"}, status=404)
    if request.POST.get("reset"):
        services.draft_delete(request.user, problem)
        return HttpResponse(status=204)
    try:
        services.draft_save(request.user, problem, request.POST.get("code", ""))
    except services.DraftError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return HttpResponse(status=204)

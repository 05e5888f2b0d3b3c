"""Submission pages: Run/Submit from the problem page, a submission, history, leaderboards."""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from judge_site.catalog import selectors as catalog_selectors
from judge_site.catalog.models import Problem
from judge_site.core import gates, inputs
from judge_site.core.fragments import content_key
from judge_site.submissions import leaderboards, roofline, selectors, services, timeline
from judge_site.submissions.models import Status, VerdictChoice


class ProblemChoice(NamedTuple):
    number: int
    title: str


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@require_POST
def problem_submit(request: HttpRequest, number: int) -> HttpResponse:
    """Run or Submit from the problem page: JSON for the page's script, redirects without it."""
    if not request.user.is_authenticated:
        if _wants_json(request):
            return JsonResponse(
                {"error": "your session has expired: log in again to run or submit"}, status=401
            )
        return redirect(f"{reverse('login')}?next={reverse('problem_detail', args=[number])}")
    problem = catalog_selectors.problem_get(request.user, number)
    if problem is None:
        if _wants_json(request):
            return JsonResponse({"error": "problem: no such problem"}, status=404)
        raise Http404("no such problem")
    try:
        submission = services.submission_create(
            request.user,
            problem,
            request.POST.get("code", ""),
            request.POST.get("mode", "run"),
            address=inputs.client_ip(request),
        )
    except services.SubmissionError as exc:
        if _wants_json(request):
            return JsonResponse({"error": exc.message, "field": exc.field}, status=exc.status)
        messages.error(request, exc.message)
        return redirect("problem_detail", number=number)
    url = reverse("submission_detail", args=[submission.pk])
    if _wants_json(request):
        return JsonResponse(
            {
                "id": submission.pk,
                "status": submission.status,
                "url": url,
                "poll": reverse("api_submission", args=[submission.pk]),
            },
            status=201,
        )
    return redirect(url)


@require_GET
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = selectors.submission_get_for(request.user, pk)
    if submission is None:
        raise Http404("no such submission")
    can_see_code = submission.user_id == request.user.pk or selectors.reads_all_submissions(
        request.user
    )
    data = selectors.submission_to_json(submission, request.user)
    # A rejected timing's figures are dropped before anything is drawn (no speedup, no bar
    # of the submission's time, no % of light, no point on the roofline).
    bench = selectors.benchmark_shown(submission.benchmark)
    return render(
        request,
        "submissions/submission_detail.html",
        {
            "sub": submission,
            "data": data,
            "can_diff": can_see_code,  # the author and staff: the diff page's readers
            "can_see_code": can_see_code or gates.reads_submission(request.user, submission),
            "bench": bench,
            "rejection": selectors.benchmark_rejection(submission.benchmark),
            "bars": _bars(bench),
            "shapes": roofline.shape_rows(bench),
            "roof": roofline.roofline(
                bench, submission.environment, submission.problem.manifest or {}
            ),
            "live": submission.status != Status.DONE,
            "timeline": timeline.phase_timeline(submission.environment),
            "judged_s": (
                (submission.finished_at - submission.started_at).total_seconds()
                if submission.finished_at and submission.started_at
                else None
            ),
        },
    )


def _bars(bench: dict | None) -> list[dict[str, object]]:
    """Two horizontal bars (yours, baseline) scaled to the slower one, for an inline SVG."""
    if not bench:
        return []
    yours, base = bench.get("submission_ms"), bench.get("baseline_ms")
    if not isinstance(yours, int | float) or not isinstance(base, int | float):
        return []
    top = max(yours, base) or 1.0
    return [
        {"label": "yours", "ms": yours, "width": round(300 * yours / top, 1), "y": 0, "cls": "you"},
        {
            "label": "baseline",
            "ms": base,
            "width": round(300 * base / top, 1),
            "y": 28,
            "cls": "base",
        },
    ]


@login_required
@require_GET
def submission_list(request: HttpRequest) -> HttpResponse:
    number = request.GET.get("problem", "")
    verdict = request.GET.get("verdict", "")
    everyone = selectors.reads_all_submissions(request.user) and request.GET.get("who") == "all"
    problem = None
    if number:
        parsed = inputs.problem_number(number)
        if parsed is None:
            return HttpResponseBadRequest(
                f"problem: {inputs.shorten(number)} is not a problem number",
                content_type="text/plain; charset=utf-8",
            )
        problem = Problem.objects.filter(number=parsed).first()
    # Only what the list shows is read (of the benchmark, its speedup), as plain rows; one's
    # own history (every student's) in compiled queries.
    rows: Any
    if everyone:
        qs = selectors.submission_history(
            request.user, problem=problem, verdict=verdict, everyone=everyone
        )
        fields = selectors.HISTORY_FIELDS
        rows = qs.values(*(k for k, v in fields.items() if k == v),
                         **{k: F(v) for k, v in fields.items() if k != v})
    else:
        rows = selectors.OwnHistory(request.user.pk, problem, verdict)
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    problems = [
        ProblemChoice(p.number, p.title) for p in catalog_selectors.problems_listed(request.user)
    ]
    # The table is cached under exactly what it shows: a verdict that lands changes the key.
    table_key = content_key([everyone, *page])
    keep = {"problem": number, "verdict": verdict, "who": "all" if everyone else ""}
    query = urlencode({k: v for k, v in keep.items() if v})
    return render(
        request,
        "submissions/submission_list.html",
        {
            "page": page,
            "problems": problems,
            "verdicts": VerdictChoice.choices,
            "current": {"problem": number, "verdict": verdict, "everyone": everyone},
            "query": query,
            "table_key": table_key,
            "filters_key": content_key(
                (problems, number, verdict, everyone, request.user.is_staff)
            ),
        },
    )


@require_GET
def leaderboard_problem(request: HttpRequest, number: int) -> HttpResponse:
    # The problem and its counters in one query (the board's size and generation).
    found = catalog_selectors.problem_page(request.user, number)
    if found is None or (not found.problem.published  # an exam's: its instructors, staff
                         and gates.problem_gate(request.user, found.problem) is not None):
        raise Http404("no such problem")
    generation, _, _, solvers, _ = found.counters or (0, 0, 0, 0, 0)
    board = leaderboards.leaderboard_problem_page(
        found.problem, request.GET.get("page", 1), (solvers, generation) if found.counters else None
    )
    return render(
        request,
        "submissions/leaderboard_problem.html",
        {"problem": found.problem, "rows": board.rows, "board": board},
    )


@require_GET
def leaderboard_overall(request: HttpRequest) -> HttpResponse:
    board = leaderboards.leaderboard_overall_page(request.GET.get("page", 1))
    return render(
        request, "submissions/leaderboard_overall.html", {"rows": board.rows, "board": board}
    )

"""Staff pages beside the admin: upload and check a package, a problem's package, rejudges,
a submission in full, the operations dashboard and /metrics. Thin: services change state.
Every page asks for a capability (judge_site/core/roles.py): 403 for staff without it."""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from judge_site.accounts.tokens import user_for_key
from judge_site.catalog.models import Problem
from judge_site.core.middleware import private
from judge_site.core.roles import (
    CAPABILITIES,
    PUBLISH,
    READ_SUBMISSIONS,
    REJUDGE,
    UPLOAD,
    VIEW_METRICS,
    can,
    capability_required,
)
from judge_site.core.zips import MAX_ZIP_BYTES
from judge_site.staff import selectors
from judge_site.staff.models import CheckStatus, ProblemVersion, Rejudge, RejudgeItem
from judge_site.staff.services import ops
from judge_site.staff.services.books import is_book_zip, practice_book_upload
from judge_site.staff.services.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from judge_site.staff.services.metrics import exposition as metrics_exposition
from judge_site.staff.services.packages import (
    StaffError,
    current_version,
    package_upload,
    practice_upload,
    problem_set_published,
    version_activate,
)
from judge_site.staff.services.rejudge import rejudge_problem, rejudge_submission
from judge_site.submissions.models import Submission
from judge_site.worker import heartbeat


@capability_required(*CAPABILITIES)
def dashboard(request: HttpRequest) -> HttpResponse:
    figures = ops.ops_figures()
    return render(request, "staff/dashboard.html", {
        "figures": figures,
        "host_gone_after_s": heartbeat.HEARTBEAT_TTL_S,
        "rejudges": Rejudge.objects.select_related("created_by")[:10],
        "versions": ProblemVersion.objects.select_related("uploaded_by")[:10],
    })


@capability_required(UPLOAD)
def upload(request: HttpRequest) -> HttpResponse:
    error = ""
    if request.method == "POST":
        file = request.FILES.get("package")
        practice = request.POST.get("kind") == "practice"  # a practice folder as a zip
        try:
            if file is None:
                raise StaffError("choose a package zip to upload")
            if file.size is not None and file.size > MAX_ZIP_BYTES:
                raise StaffError(f"zip larger than {MAX_ZIP_BYTES} bytes (a package is text: "
                                 "remove large data files)")
            if practice:
                number_text = request.POST.get("number", "").strip()
                # ASCII digits only: "²".isdigit() is True, and int("²") raises.
                if number_text and not (number_text.isascii() and number_text.isdigit()
                                        and 0 < len(number_text) <= 6 and int(number_text) > 0):
                    raise StaffError("number: a problem number is a positive integer (at most "
                                     "6 digits)")
                data = file.read()
                start = int(number_text) if number_text else None
                if is_book_zip(data):  # several practice folders: a report per folder
                    outcomes = practice_book_upload(request.user, data, file.name or "", start)
                    return render(request, "staff/upload_book.html", {"outcomes": outcomes})
                version = practice_upload(request.user, data, file.name or "", start)
            else:
                version = package_upload(request.user, file.read(), file.name or "")
        except StaffError as exc:
            error = str(exc)
        else:
            return redirect("staff:version", pk=version.pk)
    return render(request, "staff/upload.html", {"error": error},
                  status=400 if error else 200)


def _version_context(version: ProblemVersion) -> dict[str, Any]:
    problem = Problem.objects.filter(number=version.problem_number).first()
    return {
        "version": version,
        "problem": problem,
        "is_current": problem is not None and problem.version == version.content_hash,
        "done": version.check_status in (CheckStatus.PASSED, CheckStatus.FAILED),
    }


@capability_required(UPLOAD)
def version_detail(request: HttpRequest, pk: int) -> HttpResponse:
    version = get_object_or_404(ProblemVersion, pk=pk)
    return render(request, "staff/version.html", _version_context(version))


@capability_required(UPLOAD)
def version_status(request: HttpRequest, pk: int) -> JsonResponse:
    version = get_object_or_404(ProblemVersion, pk=pk)
    context = _version_context(version)
    html = render_to_string("staff/_check.html", context, request=request)
    return JsonResponse({"done": context["done"], "status": version.check_status, "html": html})


@capability_required(UPLOAD)
@require_POST
def version_use(request: HttpRequest, pk: int) -> HttpResponse:
    version = get_object_or_404(ProblemVersion, pk=pk)
    try:
        problem = version_activate(request.user, version)
    except StaffError as exc:
        messages.error(request, str(exc))
        return redirect("staff:version", pk=pk)
    messages.success(request, f"problem {problem.number} now runs {version.label}")
    return redirect("staff:problem", number=problem.number)


@capability_required(UPLOAD, PUBLISH, REJUDGE)
def problem_detail(request: HttpRequest, number: int) -> HttpResponse:
    problem = get_object_or_404(selectors.problems_with_counts(), number=number)
    return render(request, "staff/problem.html", {
        "problem": problem,
        "package": selectors.package_view(problem.package_dir),
        "current": current_version(problem),
        "versions": selectors.versions_of(number),
        "rejudges": Rejudge.objects.filter(scope__startswith=f"problem {number}")[:10],
    })


@capability_required(PUBLISH)
@require_POST
def problem_publish(request: HttpRequest, number: int) -> HttpResponse:
    problem = get_object_or_404(Problem, number=number)
    publish = request.POST.get("published") == "1"
    try:
        problem_set_published(request.user, problem, publish)
    except StaffError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"problem {number} is {'published' if publish else 'hidden'}")
    return redirect("staff:problem", number=number)


@capability_required(REJUDGE)
@require_POST
def problem_rejudge(request: HttpRequest, number: int) -> HttpResponse:
    problem = get_object_or_404(Problem, number=number)
    rejudge = rejudge_problem(request.user, problem,
                              only_accepted=request.POST.get("only_accepted") == "1",
                              fresh_seed=request.POST.get("fresh_seed") == "1")
    return redirect("staff:rejudge", pk=rejudge.pk)


def _rejudge_context(rejudge: Rejudge) -> dict[str, Any]:
    items = list(RejudgeItem.objects.filter(rejudge=rejudge).select_related(
        "submission__user", "submission__problem"))
    return {
        "rejudge": rejudge,
        "items": items,
        "changed": [i for i in items if i.changed],
        "failed": [i for i in items if i.status == "failed"],
        "finished_count": sum(i.status in ("done", "failed") for i in items),
        "done": rejudge.finished_at is not None,
    }


@capability_required(REJUDGE)
def rejudge_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "staff/rejudge.html",
                  _rejudge_context(get_object_or_404(Rejudge, pk=pk)))


@capability_required(REJUDGE)
def rejudge_status(request: HttpRequest, pk: int) -> JsonResponse:
    context = _rejudge_context(get_object_or_404(Rejudge, pk=pk))
    html = render_to_string("staff/_rejudge_table.html", context, request=request)
    return JsonResponse({"done": context["done"], "html": html})


@capability_required(READ_SUBMISSIONS)
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sub = get_object_or_404(Submission.objects.select_related("user", "problem"), pk=pk)
    result = sub.judge_result()
    queued_at = getattr(sub, "queued_at", None) or sub.created_at  # the last (re)queueing
    phases = {
        "waited_s": (sub.started_at - queued_at).total_seconds()
        if sub.started_at and sub.started_at >= queued_at else None,
        "judged_s": (sub.finished_at - sub.started_at).total_seconds()
        if sub.finished_at and sub.started_at else None,
    }
    return render(request, "staff/submission.html", {
        "sub": sub, "result": result, "phases": phases,
        "version": selectors.version_label(sub),
        "rejudged": RejudgeItem.objects.filter(submission=sub).select_related("rejudge")[:20],
    })


@capability_required(REJUDGE)
@require_POST
def submission_rejudge(request: HttpRequest, pk: int) -> HttpResponse:
    rejudge = rejudge_submission(request.user, get_object_or_404(Submission, pk=pk),
                                 fresh_seed=request.POST.get("fresh_seed") == "1")
    return redirect("staff:rejudge", pk=rejudge.pk)


def _metrics_access(request: HttpRequest) -> int:
    """200 for the configured token or a staff account holding staff.view_metrics (by session
    or API token), 403 for a staff account without it, 401 for anyone else."""
    readers = []
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        readers.append(user)
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() in ("bearer", "token") and token:
        configured = str(settings.JUDGE_METRICS_TOKEN or "")
        if configured and hmac.compare_digest(token.encode(), configured.encode()):
            return 200
        owner = user_for_key(token)
        if owner is not None:
            readers.append(owner)
    staff = [reader for reader in readers if reader.is_staff]
    if any(can(reader, VIEW_METRICS) for reader in staff):
        return 200
    return 403 if staff else 401


def metrics(request: HttpRequest) -> HttpResponse:
    """The operations figures in Prometheus' text format, for staff holding
    staff.view_metrics and for the configured token."""
    access = _metrics_access(request)
    if access == 403:
        return HttpResponseForbidden(
            f"403 forbidden: /metrics needs the permission {VIEW_METRICS} (or the metrics "
            "token); ask an administrator to add it to your account.\n",
            content_type="text/plain; charset=utf-8",
        )
    if access != 200:
        response = HttpResponse("staff or the metrics token only\n", status=401,
                                content_type="text/plain; charset=utf-8")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return private(HttpResponse(metrics_exposition(), content_type=METRICS_CONTENT_TYPE))

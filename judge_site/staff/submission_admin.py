"""Submissions in the admin: search and filter; the full view is the staff page.

Registered by the staff app (judge_site/staff/admin.py): its actions are the staff services'.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html

from judge_site.core.roles import REJUDGE, can
from judge_site.staff.services.rejudge import rejudge_start
from judge_site.submissions.models import Submission


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "problem", "mode", "status", "verdict", "created_at",
                    "attempts", "staff_page"]
    list_filter = ["verdict", "status", "mode", "problem", "created_at"]
    search_fields = ["=id", "user__username", "=problem__number", "problem__title"]
    date_hierarchy = "created_at"
    list_select_related = ["user", "problem"]
    actions = ["rejudge"]
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # verdicts change only by judging (rejudge)

    def has_rejudge_permission(self, request: HttpRequest) -> bool:
        return can(request.user, REJUDGE)

    def change_view(self, request: HttpRequest, object_id: str, *args: Any,
                    **kwargs: Any) -> HttpResponse:
        if not (object_id.isascii() and object_id.isdigit() and len(object_id) <= 18):
            return HttpResponseBadRequest(
                f"submission id: {object_id[:40]!r} is not a number",
                content_type="text/plain; charset=utf-8")
        return redirect("staff:submission", pk=int(object_id))

    @admin.display(description="details")
    def staff_page(self, obj: Submission) -> str:
        return format_html('<a href="{}">code, tests, benchmark</a>',
                           reverse("staff:submission", args=[obj.pk]))

    @admin.action(description="Rejudge the selected submissions (low-priority queue)",
                  permissions=["rejudge"])
    def rejudge(self, request: HttpRequest, queryset: QuerySet[Submission]) -> HttpResponse:
        ids = sorted(queryset.values_list("pk", flat=True))
        scope = f"submissions {', '.join(map(str, ids[:5]))}" + (" ..." if len(ids) > 5 else "")
        rejudge = rejudge_start(request.user, queryset.order_by("pk"), scope)
        return redirect("staff:rejudge", pk=rejudge.pk)

"""The audit log, versions and rejudges in the admin: read-only records. The problems' and the
submissions' admin (whose actions are staff services) are registered from here too."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from judge_site.staff import problem_admin, submission_admin  # noqa: F401  (register)
from judge_site.staff.models import AuditEntry, ProblemVersion, Rejudge, RejudgeItem


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor_name", "action", "target", "detail"]
    list_filter = ["action", "at"]
    search_fields = ["actor_name", "target", "action"]
    date_hierarchy = "at"


@admin.register(ProblemVersion)
class ProblemVersionAdmin(ReadOnlyAdmin):
    list_display = ["problem_number", "ordinal", "title", "check_status", "uploaded_by",
                    "created_at", "activated_at"]
    list_filter = ["check_status"]
    search_fields = ["=problem_number", "title", "content_hash"]


class RejudgeItemInline(admin.TabularInline):
    model = RejudgeItem
    extra = 0
    can_delete = False
    readonly_fields = ["submission", "status", "verdict_before", "verdict_after",
                       "version_before", "version_after", "message", "finished_at"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Rejudge)
class RejudgeAdmin(ReadOnlyAdmin):
    list_display = ["id", "scope", "created_by", "created_at", "finished_at"]
    inlines = [RejudgeItemInline]

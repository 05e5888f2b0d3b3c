"""Problems in the admin: the staff list, publish/unpublish through the staff services.

A problem's content comes from its package (upload a new version at /staff/upload/); the
admin shows it read-only and links to the staff package page.

Registered by the staff app (judge_site/staff/admin.py): its actions are the staff services'.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from judge_site.catalog.models import Problem
from judge_site.core.roles import PUBLISH, REJUDGE, can
from judge_site.staff.selectors import problems_with_counts
from judge_site.staff.services.packages import StaffError, current_version, problem_set_published
from judge_site.staff.services.rejudge import rejudge_problem


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ["number", "title", "published", "version_label", "device", "solved",
                    "tried", "last_check", "staff_page"]
    list_display_links = ["number", "title"]
    list_filter = ["published", "device", "difficulty"]
    search_fields = ["=number", "title", "slug"]
    actions = ["publish", "unpublish", "rejudge_all", "rejudge_accepted"]
    readonly_fields = ["number", "slug", "title", "difficulty", "chapter", "tags", "device",
                       "version", "package_dir", "published", "created_at", "updated_at"]
    exclude = ["statement_md", "starter_code", "manifest", "public_examples"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Problem]:
        return problems_with_counts()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # problems come from packages: /staff/upload/

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # unpublish instead: submissions keep their problem

    # The actions ask for the same capability as the staff pages (judge_site/core/roles.py).
    def has_publish_permission(self, request: HttpRequest) -> bool:
        return can(request.user, PUBLISH)

    def has_rejudge_permission(self, request: HttpRequest) -> bool:
        return can(request.user, REJUDGE)

    @admin.display(ordering="solved")
    def solved(self, obj: Any) -> int:
        return obj.solved

    @admin.display(ordering="tried")
    def tried(self, obj: Any) -> int:
        return obj.tried

    @admin.display(description="version")
    def version_label(self, obj: Problem) -> str:
        version = current_version(obj)
        return version.label if version else f"disk {obj.version[:8]}"

    @admin.display(description="last package check")
    def last_check(self, obj: Problem) -> str:
        from judge_site.staff.models import ProblemVersion

        version = ProblemVersion.objects.filter(problem_number=obj.number).order_by(
            "-created_at").first()
        return f"{version.label}: {version.check_status}" if version else "-"

    @admin.display(description="package")
    def staff_page(self, obj: Problem) -> str:
        return format_html('<a href="{}">package, versions, rejudge</a>',
                           reverse("staff:problem", args=[obj.number]))

    def _publish(self, request: HttpRequest, queryset: QuerySet[Problem], value: bool) -> None:
        done = 0
        for problem in queryset:
            try:
                done += problem_set_published(request.user, problem, value)
            except StaffError as exc:
                self.message_user(request, str(exc), messages.ERROR)
        self.message_user(request, f"{done} problem(s) {'published' if value else 'unpublished'}")

    @admin.action(description="Publish the selected problems", permissions=["publish"])
    def publish(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        self._publish(request, queryset, True)

    @admin.action(description="Unpublish the selected problems", permissions=["publish"])
    def unpublish(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        self._publish(request, queryset, False)

    @admin.action(description="Rejudge all submissions of the selected problems",
                  permissions=["rejudge"])
    def rejudge_all(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        for problem in queryset:
            rejudge = rejudge_problem(request.user, problem)
            self.message_user(request, f"rejudge #{rejudge.pk} started: {rejudge.scope}")

    @admin.action(description="Rejudge the accepted submissions of the selected problems",
                  permissions=["rejudge"])
    def rejudge_accepted(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        for problem in queryset:
            rejudge = rejudge_problem(request.user, problem, only_accepted=True)
            self.message_user(request, f"rejudge #{rejudge.pk} started: {rejudge.scope}")

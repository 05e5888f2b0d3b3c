"""Staff link an LMS course (a context django-lti recorded at a launch) to one of our courses,
see which links open which assignment, and watch the grade pushes (pending ones with the
platform's last answer; "send again" queues them at once). Platforms are registered with
django-lti's own admin (LTI registrations, with their deployments)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages

from judge_site.lti import grades
from judge_site.lti.models import AssignmentLink, CourseLink, GradePush, PushState


@admin.register(CourseLink)
class CourseLinkAdmin(admin.ModelAdmin):
    list_display = ["context", "course", "created_at", "roster_synced_at"]
    list_select_related = ["context", "course"]
    raw_id_fields = ["course"]
    readonly_fields = ["roster_synced_at"]


@admin.register(AssignmentLink)
class AssignmentLinkAdmin(admin.ModelAdmin):
    list_display = ["resource_link", "assignment", "can_publish_scores", "lineitem_url"]
    list_select_related = ["resource_link", "assignment"]
    raw_id_fields = ["assignment"]


@admin.register(GradePush)
class GradePushAdmin(admin.ModelAdmin):
    list_display = ["user", "link", "score_given", "score_maximum", "state", "attempts",
                    "scored_at", "sent_at", "last_error"]
    list_filter = ["state"]
    list_select_related = ["user", "link"]
    readonly_fields = [f.name for f in GradePush._meta.fields]
    actions = ["send_again"]

    def has_add_permission(self, request: Any) -> bool:
        return False

    @admin.action(description="Send again now")
    def send_again(self, request: Any, queryset: Any) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        GradePush.objects.filter(pk__in=ids).update(state=PushState.PENDING)
        for push_id in ids:
            grades._enqueue_send(push_id)
        messages.success(request, f"{len(ids)} grade push(es) queued.")

"""Courses, memberships and assignments in Django's admin. A deadline changed here is recorded
in the audit log like one changed on the course's pages (services.audit_admin_change)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from judge_site.courses import services
from judge_site.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Membership,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]
    readonly_fields = ["joined_at"]


class AssignmentInline(admin.TabularInline):
    model = Assignment
    extra = 0
    fields = ["title", "opens_at", "due_at", "late_until", "late_credit"]
    show_change_link = True


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "join_code", "created_by", "created_at"]
    search_fields = ["title", "=join_code"]
    raw_id_fields = ["created_by"]
    inlines = [MembershipInline, AssignmentInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["course", "user", "role", "joined_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "course__title"]
    raw_id_fields = ["user", "course"]


class AssignmentProblemInline(admin.TabularInline):
    model = AssignmentProblem
    extra = 1
    raw_id_fields = ["problem"]


class ExtensionInline(admin.TabularInline):
    model = Extension
    extra = 0
    raw_id_fields = ["user", "granted_by"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["title", "course", "opens_at", "due_at", "late_until", "late_credit"]
    list_filter = ["course"]
    search_fields = ["title", "course__title"]
    inlines = [AssignmentProblemInline, ExtensionInline]

    def save_model(self, request: HttpRequest, obj: Assignment, form: Any, change: bool) -> None:
        before = Assignment.objects.filter(pk=obj.pk).first() if change else None
        super().save_model(request, obj, form, change)
        if before is not None:
            services.audit_admin_change(request.user, before, obj)

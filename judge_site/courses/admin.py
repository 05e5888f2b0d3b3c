"""Courses, memberships and assignments in Django's admin. Grade-relevant changes made here (a
deadline moved, an extension given, a student removed) are recorded in the audit log as the
course's pages record them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from judge_site.courses import services
from judge_site.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Exam,
    ExamProblem,
    ExamSeat,
    Extension,
    Invitation,
    Membership,
    Role,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]
    readonly_fields = ["joined_at"]


class AssignmentInline(admin.TabularInline):
    """Read-only here: dates are changed on the assignment's own page, which audits them."""

    model = Assignment
    extra = 0
    fields = ["title", "opens_at", "due_at", "late_until", "late_credit"]
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "join_code", "created_by", "created_at"]
    search_fields = ["title", "=join_code"]
    raw_id_fields = ["created_by"]
    inlines = [MembershipInline, AssignmentInline]

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        super().save_formset(request, form, formset, change)
        if formset.model is Membership:
            for membership in formset.deleted_objects:
                if membership.role == Role.STUDENT:
                    services.audit_student_removed(request.user, membership, via="admin")


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["course", "user", "role", "joined_at", "share_email", "roster_email"]
    list_filter = ["role"]
    search_fields = ["user__username", "course__title"]
    raw_id_fields = ["user", "course"]

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        super().delete_model(request, obj)
        if obj.role == Role.STUDENT:
            services.audit_student_removed(request.user, obj, via="admin")

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        removed = [m for m in queryset.select_related("course", "user") if m.role == Role.STUDENT]
        super().delete_queryset(request, queryset)
        for membership in removed:
            services.audit_student_removed(request.user, membership, via="admin")


class AssignmentProblemInline(admin.TabularInline):
    model = AssignmentProblem
    extra = 1
    raw_id_fields = ["problem"]


class ExtensionInline(admin.TabularInline):
    model = Extension
    extra = 0
    fields = ["user", "due_at", "granted_by", "granted_at"]
    readonly_fields = ["granted_by", "granted_at"]
    raw_id_fields = ["user"]


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

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is not Extension:
            super().save_formset(request, form, formset, change)
            return
        before = {
            e.pk: e.due_at for e in Extension.objects.filter(assignment_id=form.instance.pk)
        }
        for extension in formset.save(commit=False):
            extension.granted_by = request.user
            extension.save()
            services.audit_extension(
                request.user, extension, before.get(extension.pk), via="admin"
            )
        for extension in formset.deleted_objects:
            extension.delete()


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Read-only: an invitation is answered by its student (the courses page or the API)."""

    list_display = ["course", "address", "status", "invited_by", "invited_at", "answered_at"]
    list_filter = ["status"]
    search_fields = ["address", "course__title"]
    readonly_fields = [f.name for f in Invitation._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ExamProblemInline(admin.TabularInline):
    model = ExamProblem
    extra = 0
    raw_id_fields = ["problem"]
    readonly_fields = ["frozen_version", "frozen_dir"]


class ExamSeatInline(admin.TabularInline):
    model = ExamSeat
    extra = 0
    raw_id_fields = ["user", "granted_by"]


@admin.register(Exam)
class ExamAdmin(admin.ModelAdmin):
    """Exams and contests; the versions recorded at the opening are read-only."""

    list_display = ["id", "title", "kind", "course", "opens_at", "closes_at", "duration_min"]
    list_filter = ["kind"]
    search_fields = ["title", "course__title"]
    raw_id_fields = ["course", "assignment"]
    readonly_fields = ["frozen_at", "unfrozen_at"]
    inlines = [ExamProblemInline, ExamSeatInline]

"""Hints in the admin: the per-problem switch and overrides, with the counts of what was shown."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from judge_site.hints.models import HintSettings, HintShown
from judge_site.hints.services import staff_table


@admin.register(HintSettings)
class HintSettingsAdmin(admin.ModelAdmin):
    list_display = ["problem", "enabled", "after", "cooldown_s"]
    fields = ["problem", "enabled", "after", "cooldown_s", "counts"]
    readonly_fields = ["counts"]

    @admin.display(description="shown; then AC (mean Submits after)")
    def counts(self, obj: HintSettings) -> str:
        rows = staff_table(obj.problem) if obj.pk else []
        if not rows:
            return "no hint shown yet"
        body = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((r["check"], r["rung"], r["shown"], r["ac"], r["mean_attempts_to_ac"] or "-") for r in rows),
        )
        return format_html(
            '<table class="hint-counts"><tr><th>check</th><th>hint</th><th>shown</th>'
            "<th>then AC</th><th>Submits to AC</th></tr>{}</table>", body
        )


@admin.register(HintShown)
class HintShownAdmin(admin.ModelAdmin):
    list_display = ["problem", "check_key", "rung", "user", "shown_at", "submits_before"]
    list_filter = ["problem"]
    search_fields = ["user__username", "=problem__number", "check_key"]
    readonly_fields = ["user", "problem", "check_key", "rung", "shown_at", "submits_before"]

    def has_add_permission(self, request: object) -> bool:
        return False

"""Hints keyed to the failing check: per-problem switches and what each student was shown."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judge_site.catalog.models import Problem
from judge_site.core.constraints import one_per


class HintSettings(models.Model):
    """The admin's overrides of a problem's ``[hints]`` table (blank: the package's value)."""

    problem = models.OneToOneField(Problem, on_delete=models.CASCADE, related_name="hint_settings")
    enabled = models.BooleanField(default=True, help_text="off: no hint of this problem is shown")
    after = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="distinct failing Submits before each next hint"
    )
    cooldown_s = models.FloatField(
        null=True, blank=True, help_text="seconds since the last hint of a check before the next"
    )

    class Meta:
        verbose_name_plural = "hint settings"

    def __str__(self) -> str:
        return f"hints of {self.problem}"


class HintShown(models.Model):
    """One rung of one check's ladder, shown to one student (once: later views repeat it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="hints_shown")
    check_key = models.CharField(max_length=200)  # "case", "fn:..." or "tag:..."
    rung = models.PositiveSmallIntegerField()  # 0 = the first hint of the ladder
    shown_at = models.DateTimeField(auto_now_add=True)
    # finished Submits of this student on this problem when the hint was shown
    submits_before = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = one_per("hint_shown_once", "user", "problem", "check_key", "rung")
        indexes = [models.Index(fields=["problem", "user"])]

    def __str__(self) -> str:
        return f"{self.user} {self.problem.number} {self.check_key} #{self.rung + 1}"

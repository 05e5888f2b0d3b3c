"""The enumerations that the models store and the API's schema names (judge_site/core/
openapi_schemas.py): kept here, below every app, so that the schema and the validation of API
bodies read them without importing the apps above core. The models import them from here."""

from __future__ import annotations

from django.db import models

from sandbox.grader.contracts import VERDICT_LABELS, Verdict


class Status(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"


class Mode(models.TextChoices):
    RUN = "run"
    SUBMIT = "submit"
    # the student's code plus a script of theirs (``script``), its prints kept in ``output``;
    # never counted anywhere (stats, boards, courses, hints) and never in the history
    SCRATCH = "scratch"


class VerdictChoice(models.TextChoices):
    """A judging's verdict (every Verdict but SK, which is per test only); the labels are
    sandbox.grader.contracts.VERDICT_LABELS."""

    AC = "AC", VERDICT_LABELS[Verdict.AC]
    WA = "WA", VERDICT_LABELS[Verdict.WA]
    TLE = "TLE", VERDICT_LABELS[Verdict.TLE]
    MLE = "MLE", VERDICT_LABELS[Verdict.MLE]
    OLE = "OLE", VERDICT_LABELS[Verdict.OLE]
    RE = "RE", VERDICT_LABELS[Verdict.RE]
    CE = "CE", VERDICT_LABELS[Verdict.CE]
    IE = "IE", VERDICT_LABELS[Verdict.IE]


class Role(models.TextChoices):
    INSTRUCTOR = "instructor"
    STUDENT = "student"


class InvitationStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class ExamKind(models.TextChoices):
    EXAM = "exam"
    CONTEST = "contest"

"""Deletions the services never see (a user deleted with their submissions, a row deleted in
the admin) keep the aggregates right too (aggregates.py).

Signals, because a cascade is the only place that knows what it deletes: a user's rows leave
the counters before the user goes, and each deleted submission's pair is recomputed."""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

from judge_site.submissions import aggregates
from judge_site.submissions.models import Submission

# Sent in the transaction that writes a judging's final verdict (services._finish), with
# ``submission`` (its user_id and problem_id are set): apps above this one (judge_site/lti)
# record what the verdict changes in the same transaction, so a verdict written never loses it.
verdict_written = Signal()


def user_deleting(sender: Any, instance: Any, **_: Any) -> None:
    aggregates.stats_forget_user(instance.pk)


def submission_deleted(sender: Any, instance: Submission, **_: Any) -> None:
    if not aggregates.stats_is_muted():
        aggregates.stats_refresh_pair(instance.user_id, instance.problem_id)

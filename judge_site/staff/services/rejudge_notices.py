"""When a rejudge finishes: hand each student's changed verdicts to the e-mail notice
(judge_site/accounts/notices.py), one call per student. Only Submits (a Run is a scratch
attempt and never notified) whose new verdict differs from the old one."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from django.db.models import F

from judge_site.accounts import mail, notices
from judge_site.staff.models import RejudgeItem, RejudgeStatus
from judge_site.submissions.models import Mode, VerdictChoice

logger = logging.getLogger(__name__)


def _label(code: str) -> str:
    return str(VerdictChoice(code).label) if code in VerdictChoice.values else code


def rejudge_notices_queue(rejudge_id: int) -> None:
    """Queue the notices of a finished rejudge; any error is logged, never raised (this runs
    after a judging's commit, which it must not fail)."""
    if not mail.mail_enabled():
        return
    try:
        items = (
            RejudgeItem.objects.filter(
                rejudge_id=rejudge_id, status=RejudgeStatus.DONE, submission__mode=Mode.SUBMIT
            )
            .exclude(verdict_after=F("verdict_before"))
            .values_list(
                "submission__user_id", "submission_id", "submission__problem__number",
                "submission__problem__title", "verdict_before", "verdict_after",
            )
            .order_by("submission_id")
        )
        by_user: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for user_id, sub_id, number, title, before, after in items:
            by_user[user_id].append({
                "submission": sub_id, "problem": number, "title": title,
                "before": _label(before), "after": _label(after),
            })
        for user_id, changes in by_user.items():
            notices.rejudge_notice_later(rejudge_id, user_id, changes)
    except Exception:
        logger.exception("rejudge %s: its notices were not queued", rejudge_id)

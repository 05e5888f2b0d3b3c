"""Staff tasks: thin wrappers around the services. The workers' heartbeat is in judge_site/worker/heartbeat.py
(imported here so that its signal handlers are connected in every worker)."""

from __future__ import annotations

from celery import shared_task

from judge_site.staff.services.packages import CHECK_SOFT_LIMIT_S, version_check
from judge_site.staff.services.rejudge import rejudge_item_judge
from judge_site.worker import heartbeat  # noqa: F401  (connects the heartbeat's signals)


@shared_task(acks_late=True, name="staff.check_version",
             soft_time_limit=CHECK_SOFT_LIMIT_S, time_limit=CHECK_SOFT_LIMIT_S + 60)
def check_version(version_id: int) -> str:
    return version_check(int(version_id))


@shared_task(acks_late=True, name="staff.rejudge_item")
def rejudge_item(item_id: int) -> str:
    return rejudge_item_judge(int(item_id))

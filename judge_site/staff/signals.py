"""Changes made through Django's admin forms (users, groups, permissions: the settings-like
actions) go to the audit log too, beside what the staff services record themselves."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry

from judge_site.staff.models import AuditEntry

_VERBS = {ADDITION: "add", CHANGE: "change", DELETION: "delete"}


def mirror_admin_log(sender: Any, instance: LogEntry, created: bool, **_: Any) -> None:
    if not created:
        return
    model = instance.content_type.model if instance.content_type_id else "object"
    AuditEntry.objects.create(
        actor_id=instance.user_id,
        actor_name=instance.user.get_username()[:150],
        action=f"admin.{_VERBS.get(instance.action_flag, 'other')}",
        target=f"{model} {instance.object_repr}"[:200],
        detail={"change": instance.get_change_message(), "object_id": instance.object_id},
    )

"""The audit log: every staff action that changes the judge is recorded here, by services."""

from __future__ import annotations

from typing import Any

from judge_site.staff.models import AuditEntry


def audit_record(actor: Any, action: str, target: str = "", **detail: Any) -> AuditEntry:
    """Record that ``actor`` (a user, or None for the command line / the system) did ``action``
    on ``target``; ``detail`` holds JSON-able facts (versions, counts, refusal messages)."""
    user = actor if getattr(actor, "pk", None) is not None else None
    name = actor.get_username() if user is not None else str(actor or "")
    return AuditEntry.objects.create(
        actor=user, actor_name=name[:150], action=action, target=target[:200], detail=detail
    )

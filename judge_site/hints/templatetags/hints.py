"""``{% hint_box problem %}``: the student's hints for a problem (result page, problem page)."""

from __future__ import annotations

from typing import Any

from django import template

from judge_site.hints.services import hints_for

register = template.Library()


@register.inclusion_tag("hints/_hints.html", takes_context=True)
def hint_box(context: dict[str, Any], problem: Any) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"hints": hints_for(user, problem) if user is not None else []}

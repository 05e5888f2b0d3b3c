"""``{% scratch_panel problem %}``: the problem page's scratchpad (judge_site/submissions/scratch.py)."""

from __future__ import annotations

from typing import Any

from django import template

from judge_site.catalog.models import Problem
from judge_site.submissions.scratch import problem_refuses_scratch, snippets_for
from sandbox.grader.contracts import SCRATCH_OUTPUT_CHARS

register = template.Library()


@register.inclusion_tag("submissions/_scratch.html", takes_context=True)
def scratch_panel(context: dict[str, Any], problem: Problem) -> dict[str, Any]:
    refused = problem_refuses_scratch(problem)
    snippets = [] if refused else snippets_for(problem)
    return {
        "refused": refused,
        "user": context.get("user"),
        "request": context.get("request"),
        "problem": problem,
        "snippets": snippets,
        "snippet_texts": {s.key: s.text for s in snippets},
        "limit_chars": SCRATCH_OUTPUT_CHARS,
    }

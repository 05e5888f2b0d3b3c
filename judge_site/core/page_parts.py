"""What the apps above the catalog add to a problem's page, asked by the catalog's view without
importing them (apps import one way, as with judge_site/core/gates.py): the submissions app its
statistics and where the problem is judged, the hints app the hints due. Each registers a part
in its AppConfig.ready(); a part answers the template context it adds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest

from judge_site.core.gates import Gate

# (request, problem, the catalog's ProblemPage, the exam gate or None) -> context
ProblemPagePart = Callable[[HttpRequest, Any, Any, "Gate | None"], dict[str, Any]]

_parts: list[ProblemPagePart] = []


def register_problem_page_part(part: ProblemPagePart) -> None:
    if part not in _parts:
        _parts.append(part)


def problem_page_parts(request: HttpRequest, problem: Any, page: Any,
                       gate: Gate | None) -> dict[str, Any]:
    """The context every registered part adds to the problem's page."""
    context: dict[str, Any] = {}
    for part in _parts:
        context.update(part(request, problem, page, gate))
    return context

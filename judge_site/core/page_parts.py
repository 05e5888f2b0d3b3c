"""What the apps above the catalog add to a problem's page, asked by the catalog's view without
importing them (apps import one way, as with judge_site/core/gates.py): the submissions app its
statistics, where the problem is judged and the judging a refresh resumes, the hints app the
hints due. Each registers a part in its AppConfig.ready(); a part answers the template context
it adds. The submissions app also gives a user's ``Progress`` (the problem list's marks, whether
the solution notes open).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Progress:
    """A user's progress on the problems. ``marks(user_id)``: (problem id, accepted) of each
    problem the user tried; ``solved(user_id, problem_id)``: an accepted Submit of it."""

    marks: Callable[[int], list[tuple[int, bool]]]
    solved: Callable[[int, int], bool]


NO_PROGRESS = Progress(marks=lambda user_id: [], solved=lambda user_id, problem_id: False)
_progress: list[Progress] = []


def register_progress(progress: Progress) -> None:
    _progress[:] = [progress]


def progress() -> Progress:
    """The registered reader of a user's progress (none registered: nothing tried)."""
    return _progress[0] if _progress else NO_PROGRESS

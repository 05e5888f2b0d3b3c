"""The diff of two submissions of one problem: two picked in the history, or one and the same
author's previous one. Only the author and staff who read every submission see it (anyone
else: 404, as for the submission itself); both submissions are read in one query."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.views.decorators.http import require_GET

from judge_site.core import inputs
from judge_site.submissions import selectors
from judge_site.submissions.code_diff import code_diff
from judge_site.submissions.models import Submission

PICK_TWO = (
    "pick exactly two submissions to compare: tick two in your submission list "
    "(/submissions/), then press “Diff the two ticked”"
)


_ID = re.compile(r"[0-9]{1,18}")


def _submission_id(text: str) -> int | None:
    """The submission number written in ``text`` (ASCII digits), or None."""
    return int(text) if _ID.fullmatch(text.strip()) else None


def _bad(message: str) -> HttpResponse:
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def _page(request: HttpRequest, older: Submission, newer: Submission | None) -> HttpResponse:
    return render(
        request,
        "submissions/submission_diff.html",
        {
            "older": older,
            "newer": newer,
            "diff": code_diff(older.code, newer.code) if newer is not None else None,
        },
    )


@login_required
@require_GET
def submission_diff(request: HttpRequest) -> HttpResponse:
    """``?s=A&s=B``: the two picked submissions, the older on the left."""
    picked = request.GET.getlist("s")
    ids = []
    for value in picked:
        number = _submission_id(value)
        if number is None:
            return _bad(f"s: {inputs.shorten(value)} is not a submission number; {PICK_TWO}")
        ids.append(number)
    if len(set(ids)) != 2:
        return _bad(PICK_TWO)
    found = sorted(selectors.submission_visible_to(request.user).filter(pk__in=ids),
                   key=lambda s: s.pk)
    if len(found) != 2:
        raise Http404("no such submission")
    older, newer = found
    if older.problem_id != newer.problem_id:
        return _bad(
            f"#{older.pk} and #{newer.pk} are submissions of different problems: pick two of "
            "the same problem (the list's Problem filter shows one problem's)"
        )
    return _page(request, older, newer)


@login_required
@require_GET
def submission_diff_previous(request: HttpRequest, pk: int) -> HttpResponse:
    """Submission ``pk`` against its author's previous submission of the same problem."""
    visible = selectors.submission_visible_to(request.user)
    newer = visible.filter(pk=pk).first()
    if newer is None:
        raise Http404("no such submission")
    older = (
        visible.filter(user_id=newer.user_id, problem_id=newer.problem_id, pk__lt=newer.pk)
        .order_by("-pk")
        .first()
    )
    if older is None:  # nothing before it: the page says so
        return _page(request, newer, None)
    return _page(request, older, newer)

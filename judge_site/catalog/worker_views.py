"""The main host's side of "no shared disk": a worker host fetches a problem version by its
content hash (judge_site/worker/package_cache.py).

``GET /internal/packages/<hash>.zip`` (WorkerPackagesMiddleware) answers only a request carrying the workers' token
(JUDGE_WORKER_TOKEN, header X-Judge-Worker-Token, compared in constant time); a session or an
API token, a student's or staff's, counts for nothing here. The endpoint is off (404) while no
worker token is set. 403 for a missing or wrong token, 404 for a hash no problem or uploaded
version has, or whose folder on this host no longer holds exactly that content.

It is answered by a middleware placed first, before Django validates the Host header: a worker
host reaches the web by an address (10.0.0.1:8000) that ALLOWED_HOSTS, the site's public
names, need not list. Nothing here builds a URL from the Host header; the token is the check.
"""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from judge_site.catalog.models import Problem
from judge_site.catalog.services import problem_export_zip
from judge_site.core import gates
from judge_site.core.middleware import private
from judge_site.worker.package_cache import TOKEN_HEADER, VERSION_RE
from sandbox.grader.package import PackageError, package_version

logger = logging.getLogger(__name__)


def package_dir_of_version(version: str) -> Path | None:
    """The folder on this host holding content hash ``version`` (a problem's current version
    or an uploaded one: the staff app names those, core/gates.py), or None."""
    candidates = list(Problem.objects.filter(version=version).values_list("package_dir", flat=True))
    candidates += gates.version_folders(version)
    for folder in dict.fromkeys(candidates):
        path = Path(folder)
        try:
            if path.is_dir() and package_version(path) == version:
                return path
        except OSError:
            continue
    return None


def _worker_allowed(request: HttpRequest) -> bool:
    expected = str(getattr(settings, "JUDGE_WORKER_TOKEN", "") or "")
    given = request.headers.get(TOKEN_HEADER, "")
    return hmac.compare_digest(given.encode(), expected.encode())


def _refused(status: int, why: str) -> HttpResponse:
    """A short plain-text answer: the worker puts it in the IE's message for staff."""
    return private(HttpResponse(why + "\n", status=status,
                                content_type="text/plain; charset=utf-8"))


@require_GET
def package_zip(request: HttpRequest, version: str) -> HttpResponse:
    if not getattr(settings, "JUDGE_WORKER_TOKEN", ""):
        return _refused(404, "the main host has no JUDGE_WORKER_TOKEN: package fetching is off")
    if not _worker_allowed(request):
        return _refused(403, "workers only: a wrong or missing worker token")
    if not VERSION_RE.match(version):
        return _refused(404, "not a content hash")
    folder = package_dir_of_version(version)
    if folder is None:
        return _refused(404, "no package on the main host has this content hash (changed on "
                             "its disk since it was synced, or removed)")
    try:
        data = problem_export_zip(folder)
    except PackageError as exc:
        logger.warning("version %s at %s cannot be exported: %s", version, folder, exc)
        return _refused(404, "the main host's package of this content hash does not load")
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{version}.zip"'
    return private(response)


PACKAGE_PATH_RE = re.compile(r"^/internal/packages/([^/]*)\.zip$")


class WorkerPackagesMiddleware:
    """Answers /internal/packages/ itself, ahead of the other middleware (see above)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith("/internal/packages/"):
            return self.get_response(request)
        match = PACKAGE_PATH_RE.match(request.path_info)
        if match is None:
            return _refused(404, "not a package address")
        return package_zip(request, match[1])

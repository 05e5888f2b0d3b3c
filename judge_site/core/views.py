"""Site-wide views: the health endpoint (the front page is the catalog's problem list)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from judge_site.core.health import OK, broker_status, database_status
from judge_site.core.inputs import is_loopback


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 {"status": "ok"} when the database and the broker answer, else 503 {"status": "fail"}.

    A request from this host itself (loopback, not relayed by a proxy: the compose health
    check, an operator's curl) also gets each check's result, naming what is down and why;
    the public never sees those details (driver messages, host names)."""
    checks = {"database": database_status(), "broker": broker_status()}
    healthy = all(value == OK for value in checks.values())
    body = {"status": "ok" if healthy else "fail"}
    if is_loopback(request):
        body.update(checks)
    return JsonResponse(body, status=200 if healthy else 503)


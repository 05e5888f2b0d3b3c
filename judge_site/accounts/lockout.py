"""The log-in throttle (django-axes with one rule of ours): who gets locked out, and who not.

Three counters, each over the cool-off window (JUDGE_LOGIN_COOLOFF_MIN, 15 minutes):

1. the pair username + client address: JUDGE_LOGIN_FAILURE_LIMIT failures (10) lock that pair.
   One guesser locks only themself, never the account's owner at another address;
2. the client address, whatever the usernames (JUDGE_LOGIN_LOCKOUT's ``ip_address``): the same
   limit stops one address trying a password on many accounts;
3. the username, from every address together: JUDGE_LOGIN_USERNAME_FAILURE_LIMIT (50), a slower
   rate against a guesser who rotates addresses. **The address the account last logged in from
   successfully is exempt from this one**, so a crowd of addresses guessing at ``admin`` cannot
   lock the instructor out from their usual machine (they still meet counters 1 and 2 there).

Counters 1 and 2 are django-axes' own (AXES_LOCKOUT_PARAMETERS); 3 is this handler's. A success
resets nothing (AXES_RESET_ON_SUCCESS = False: else an attacker could clear an address's count by
logging in to an account of their own).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt, AccessLog
from django.conf import settings
from django.db.models import Sum
from django.utils import timezone


def username_failures(username: str, window: timedelta) -> int:
    """Failed log-ins into ``username`` from every address within ``window``."""
    since = timezone.now() - window
    total = AccessAttempt.objects.filter(username=username, attempt_time__gte=since).aggregate(
        n=Sum("failures_since_start")
    )["n"]
    return int(total or 0)


def usual_address(username: str) -> str | None:
    """The address of the account's last successful log-in (axes' access log), if any."""
    return (
        AccessLog.objects.filter(username__iexact=username)
        .order_by("-attempt_time")
        .values_list("ip_address", flat=True)
        .first()
    )


class LockoutHandler(AxesDatabaseHandler):
    """axes' database handler plus the per-username rule (3 in the module's doc)."""

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        failures = int(super().get_failures(request, credentials))
        limit = int(get_failure_limit(request, credentials))
        per_username = settings.JUDGE_LOGIN_USERNAME_FAILURE_LIMIT
        if failures >= limit or not per_username:
            return failures
        username = get_client_username(request, credentials)
        if not username:
            return failures
        if username_failures(username, settings.AXES_COOLOFF_TIME) < per_username:
            return failures
        if usual_address(username) == getattr(request, "axes_ip_address", None):
            return failures  # the owner's usual address: only counters 1 and 2 apply
        request.axes_locked_by_username = True
        return limit

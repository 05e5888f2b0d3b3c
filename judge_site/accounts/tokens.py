"""API tokens: issued, looked up, revoked. The database keeps a token's SHA-256 digest and a
short prefix (to recognise it on the token page), never the token: whoever reads the table (a
backup, a leaked dump) cannot call the API with what it holds. A token is shown once, when it
is issued (the token page, ``manage.py create_api_token``).

The last-used time is written at most once a minute per token (one UPDATE, skipped while the
time read with the token is recent), so a busy client costs no write per call.
"""

from __future__ import annotations

import functools
import re
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from judge_site.accounts.models import ApiToken, token_digest
from judge_site.core.prepared import PreparedQuery

# Keys are hex (ApiToken.generate_key); anything else cannot match and never reaches a query.
KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,64}")
LAST_USED_EVERY = timedelta(seconds=60)


def token_issue(user: AbstractBaseUser) -> tuple[ApiToken, str]:
    """A new token for ``user`` (replacing theirs: the old one stops working) and its key,
    to be shown once."""
    key = ApiToken.generate_key()
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(user_id=user.pk).first()
        if token is None:
            token = ApiToken.objects.create(user_id=user.pk, key=key)
        else:
            token.key = key
            token.last_used_at = None
            token.created_at = timezone.now()
            token.save(update_fields=["digest", "prefix", "last_used_at", "created_at"])
    return token, key


def token_revoke(user: AbstractBaseUser) -> bool:
    """Delete ``user``'s token (it gets 401 from now on); False when they had none."""
    deleted, _ = ApiToken.objects.filter(user_id=user.pk).delete()
    return bool(deleted)


@functools.cache
def _user_fields() -> list[str]:
    return [f.attname for f in get_user_model()._meta.concrete_fields]


# Every API call asks: compiled once (judge_site/core/prepared.py).
_TOKEN_USER = PreparedQuery(
    lambda digest: ApiToken.objects.filter(digest=digest)
    .order_by("pk")
    .values_list("pk", "last_used_at", *(f"user__{name}" for name in _user_fields()))[:1],
    digest=str,
)


def user_for_key(key: str) -> AbstractBaseUser | None:
    """The active user whose token ``key`` is, or None; notes the token's use."""
    if not KEY_SHAPE.fullmatch(key):
        return None
    row = _TOKEN_USER.first(digest=token_digest(key))
    if row is None:
        return None
    pk, last_used, *fields = row
    user = get_user_model().from_db("default", _user_fields(), fields)
    if not user.is_active:
        return None
    now = timezone.now()
    if last_used is None or now - last_used >= LAST_USED_EVERY:
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
        ApiToken.objects.filter(stale, pk=pk).update(last_used_at=now)
    return user

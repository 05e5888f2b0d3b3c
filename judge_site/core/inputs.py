"""Reading untrusted request input: problem numbers, text fields and the client's address.

Every parser here returns None (or a reason) for bad input instead of raising, so that views
answer 4xx with a message; none of them lets a value reach the database that it would refuse
(NUL characters, lone surrogates, integers out of the column's range).
"""

from __future__ import annotations

import ipaddress
import re

from django.conf import settings
from django.http import HttpRequest

# Problem.number is a PositiveIntegerField: Postgres' integer.
MAX_PROBLEM_NUMBER = 2**31 - 1
_DIGITS = re.compile(r"[0-9]{1,10}")
_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")


def problem_number(text: object) -> int | None:
    """The problem number written in ``text`` (ASCII digits only: "²".isdigit() is true but
    int("²") fails), or None when it is not one or is beyond any stored number."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text if 0 <= text <= MAX_PROBLEM_NUMBER else None
    if not isinstance(text, str) or not _DIGITS.fullmatch(text.strip()):
        return None
    value = int(text.strip())
    return value if value <= MAX_PROBLEM_NUMBER else None


def problem_slug(text: object) -> str | None:
    """``text`` when it has the form of a problem slug, else None."""
    if not isinstance(text, str) or not _SLUG.fullmatch(text.strip()):
        return None
    return text.strip()


def text_problem(value: str) -> str:
    """'' when ``value`` can be stored as text, else why not (the database refuses both)."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text"
    return ""


def shorten(value: object, limit: int = 40) -> str:
    """A short, printable rendering of an untrusted value for an error message."""
    text = ascii(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def client_ip(request: HttpRequest) -> str:
    """The client's address, used by the login throttle (django-axes), the sign-up throttle
    and the cap on queued judgings:

    - a request that came over the compose stack's proxy socket (JUDGE_PROXY_SOCKET: gunicorn
      gives a unix-socket peer no address, REMOTE_ADDR is empty) or, with TRUST_X_FORWARDED_FOR,
      any request: the address the proxy wrote last in X-Forwarded-For (entries before it are
      the client's to write and are ignored);
    - else REMOTE_ADDR; "0.0.0.0" when neither is an address."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    if getattr(settings, "TRUST_X_FORWARDED_FOR", False) or _over_proxy_socket(remote):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.split(",")[-1].strip() if forwarded else ""
        if _valid_ip(last):
            return last
    return remote if _valid_ip(remote) else "0.0.0.0"


def _over_proxy_socket(remote: str) -> bool:
    """True for a request of the stack's proxy: gunicorn binds JUDGE_PROXY_SOCKET, and a peer
    on a unix socket has no address (a TCP peer always has one)."""
    return not remote and bool(getattr(settings, "JUDGE_PROXY_SOCKET", ""))


def is_loopback(request: HttpRequest) -> bool:
    """True only for a request made on this host itself, not relayed by a proxy."""
    if request.META.get("HTTP_X_FORWARDED_FOR") or request.META.get("HTTP_FORWARDED"):
        return False
    remote = request.META.get("REMOTE_ADDR", "")
    try:
        return ipaddress.ip_address(remote).is_loopback
    except ValueError:
        return False


def _valid_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True

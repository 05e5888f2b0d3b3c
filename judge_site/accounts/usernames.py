"""Usernames that cannot pass for someone else's.

A new username is ASCII letters, digits and ``_ . -`` only (so no Cyrillic "а" for a Latin
"a"), and may not share its *skeleton* with an existing user's: the name case-folded after
NFKC normalisation, with look-alike characters and sequences mapped to one representative
(``0``/``o``, ``1``/``l``/``i``, ``rn``/``m``, ``vv``/``w``, ``_``/``.``/``-``). So "Alice",
"a1ice", "aIice" and "alice" are one name; names registered before this rule (any Unicode)
are compared through the same skeleton.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpRequest

MIN_LENGTH = 2
MAX_LENGTH = 30
ALLOWED = re.compile(rf"[A-Za-z0-9_.-]{{{MIN_LENGTH},{MAX_LENGTH}}}")
RULE = f"{MIN_LENGTH} to {MAX_LENGTH} characters: English letters, digits and _ . - only"

# Applied in order after case-folding; sequences first.
_LOOKALIKES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("|", "l"))
_SEPARATORS = re.compile(r"[_.\-\s]+")


def skeleton(name: str) -> str:
    """The form two names share when one could be mistaken for the other."""
    text = unicodedata.normalize("NFKC", name).casefold()
    for seq, rep in _LOOKALIKES:
        text = text.replace(seq, rep)
    return _SEPARATORS.sub("-", text).strip("-")


def username_problem(name: str) -> str:
    """'' when ``name`` may be registered, else why not (a message for the sign-up form)."""
    if not ALLOWED.fullmatch(name):
        return f"Use {RULE}."
    if not re.search(r"[A-Za-z0-9]", name):
        return "Use at least one letter or digit."
    wanted = skeleton(name)
    taken = get_user_model().objects.values_list("username", flat=True).iterator()
    if any(skeleton(other) == wanted for other in taken):
        return "This name is taken, or too similar to a name that is: choose another."
    return ""


def axes_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """The username django-axes counts failures against: case-folded, so that "Alice" and
    "alice" share one counter (and one lockout)."""
    raw = ""
    if credentials:
        raw = credentials.get("username") or ""
    if not raw and request is not None and request.method == "POST":
        raw = request.POST.get("username", "")
    return str(raw).replace("\x00", "").strip().casefold()[:150]

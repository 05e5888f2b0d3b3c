"""Cache keys of page fragments, shared by every app's pages."""

from __future__ import annotations

import hashlib
from typing import Any


def content_key(values: Any) -> str:
    """A cache key made of exactly what a fragment shows (its rows' values): the same values,
    the same HTML, so a cached fragment can never be stale. ``{% cache ... key %}``."""
    return hashlib.blake2b(repr(values).encode(), digest_size=16).hexdigest()

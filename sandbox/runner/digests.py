"""Keyed digests of values as the channel encodes them (wire.py): a time reply carries the
digest of the output it timed, and the output fetched later must hash the same.

Used by the runner and by the grader (bench/verify.py)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sandbox.runner import wire


def _keyed_hash(key: str) -> Any:
    if not isinstance(key, str) or len(key) > 128:
        raise wire.WireError("bad digest key")
    try:
        return hashlib.sha256(bytes.fromhex(key))
    except ValueError:
        raise wire.WireError("bad digest key") from None


def _tree_bytes(tree: Any) -> bytes:
    return json.dumps(tree, sort_keys=True, separators=(",", ":")).encode()


def digest_encoded(tree: Any, blob: bytes, key: str) -> str:
    """Hash of an encoded value (key, blob, then the tree in canonical JSON). A time reply
    carries :func:`digest` of the output it timed, under a key sent with that request; the
    output fetched later must hash the same, so its bytes were final when the call returned
    (work left to a thread afterwards cannot match)."""
    h = _keyed_hash(key)
    h.update(blob)
    h.update(_tree_bytes(tree))
    return h.hexdigest()


def digest(value: Any, key: str) -> str:
    """:func:`digest_encoded` of ``encode(value)``, hashing tensor memory without copying it."""
    h = _keyed_hash(key)
    enc = wire.Encoder(sink=h)
    tree = enc.node(value, 0)
    h.update(_tree_bytes(tree))
    return h.hexdigest()

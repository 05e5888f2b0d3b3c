"""Which judgings have a live message in the broker (Redis, as kombu lays it out).

The reaper (services.submission_reap_stuck) sends a ``queued`` submission again when no
message for it is waiting in a queue or held by a worker: a message can be lost when a task
fails on a database restart, when Redis restarts with messages not yet written to disk, or when
a worker dies holding one. Sending again is always safe (the claim is a conditional UPDATE, so
a second message finds the submission taken and does nothing); this look only avoids piling up
needless copies behind a long queue.

kombu's Redis transport keeps a queue as a list named after it (``cpu``; priorities other than 0
in ``cpu\\x06\\x16<n>``), each message a JSON object whose ``body`` is the base64 of the task's
JSON ``[args, kwargs, embed]``; messages a worker has taken but not acknowledged are in the hash
``unacked`` (values ``[message, exchange, routing_key]``), their delivery times in the sorted set
``unacked_index``.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

JUDGE_TASK = "submissions.judge_submission"
PRIORITY_SEP = "\x06\x16"
PRIORITY_STEPS = (0, 3, 6, 9)
UNACKED = "unacked"
UNACKED_INDEX = "unacked_index"


def submission_id_of(raw: bytes | str) -> int | None:
    """The submission id a raw kombu message (JSON text) carries, if it is a judging."""
    try:
        message = json.loads(raw)
        if isinstance(message, list):  # an unacked entry: [message, exchange, routing_key]
            message = message[0]
        if message.get("headers", {}).get("task") != JUDGE_TASK:
            return None
        body: Any = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return int(args[0])
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def _queue_keys(queues: Iterable[str]) -> list[str]:
    return [q if p == 0 else f"{q}{PRIORITY_SEP}{p}" for q in queues for p in PRIORITY_STEPS]


def live_submission_ids(queues: Iterable[str], held_younger_than_s: float) -> set[int] | None:
    """Ids of the submissions with a message waiting in ``queues``, or taken by a worker less
    than ``held_younger_than_s`` ago (one held longer belongs to a worker that is dead or stuck:
    kombu gives it back only after the visibility timeout, many minutes later).

    None when the broker cannot be read (the caller then sends every candidate again)."""
    import redis

    try:
        client = redis.Redis.from_url(
            settings.CELERY_BROKER_URL, socket_timeout=5, socket_connect_timeout=5
        )
        try:
            ids: set[int] = set()
            for key in _queue_keys(queues):
                for raw in client.lrange(key, 0, -1):
                    sid = submission_id_of(raw)
                    if sid is not None:
                        ids.add(sid)
            since = time.time() - held_younger_than_s
            tags = client.zrangebyscore(UNACKED_INDEX, since, "+inf")
            if tags:
                for raw in client.hmget(UNACKED, list(tags)):  # type: ignore[arg-type, assignment]
                    sid = submission_id_of(raw) if raw is not None else None
                    if sid is not None:
                        ids.add(sid)
            return ids
        finally:
            client.close()
    except redis.RedisError as exc:
        log.warning("cannot read the broker's queues: %s: %s", type(exc).__name__, exc)
        return None

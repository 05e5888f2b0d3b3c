"""The workers' heartbeat: every worker writes a key with a short expiry every few seconds;
the staff dashboard (services/ops.py) counts the live ones."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

logger = logging.getLogger(__name__)

HEARTBEAT_EVERY_S = 10.0
HEARTBEAT_TTL_S = 35
HEARTBEAT_PREFIX = "tensor-judge:worker:"
_stop = threading.Event()


def redis_client() -> Any:

    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=3, socket_connect_timeout=3)


def _beat(hostname: str, queues: list[str]) -> None:
    key = HEARTBEAT_PREFIX + hostname
    client = redis_client()
    while not _stop.is_set():
        try:
            value = json.dumps({"hostname": hostname, "queues": queues, "pid": os.getpid(),
                                "at": time.time()})
            client.set(key, value, ex=HEARTBEAT_TTL_S)
        except Exception as exc:  # Redis away for a moment: the next beat tries again
            logger.warning("worker heartbeat failed: %s", exc)
        _stop.wait(HEARTBEAT_EVERY_S)


@worker_ready.connect
def _start_heartbeat(sender: Any = None, **_: Any) -> None:
    """Every worker writes a key with a short expiry every few seconds; the dashboard counts
    the live ones (a worker busy judging in a solo pool still beats: this is a thread)."""
    hostname = str(getattr(sender, "hostname", "") or f"worker@{os.uname().nodename}")
    try:
        queues = sorted(sender.app.amqp.queues.consume_from)
    except Exception:  # noqa: BLE001  (the names are for the dashboard only)
        queues = []
    _stop.clear()
    threading.Thread(target=_beat, args=(hostname, queues), daemon=True,
                     name="heartbeat").start()


@worker_shutdown.connect
def _stop_heartbeat(sender: Any = None, **_: Any) -> None:
    _stop.set()
    hostname = str(getattr(sender, "hostname", "") or "")
    if hostname:
        try:
            redis_client().delete(HEARTBEAT_PREFIX + hostname)
        except Exception:  # noqa: BLE001
            pass

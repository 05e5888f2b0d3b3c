"""The workers' heartbeat: every worker writes a key with a short expiry every few seconds;
the staff dashboard (services/ops.py) counts the live ones.

Each beat also names the worker's host (engine.host_name(): JUDGE_HOST_NAME or the machine's
name), its queues, its capacity (concurrency) and the tasks it runs now, and is kept, without
expiry, in one Redis hash (HOSTS_KEY, a field per worker): the record of the workers seen. A host
whose workers stopped beating still shows, as gone, for HOST_FORGET_S (services/ops.py); a
worker that shuts down cleanly marks its record stopped (kept for STOPPED_FORGET_S).

The container's health check reads the age of a file instead of asking the worker over the
broker (``celery inspect ping`` starts a Python process of ~1.5 CPU-s each time): where
JUDGE_ALIVE_FILE is set (docker-compose.yml), the worker's main loop touches it every
ALIVE_EVERY_S from its ready signal on, so the file is fresh exactly while that loop turns.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

logger = logging.getLogger(__name__)

HEARTBEAT_EVERY_S = 10.0
HEARTBEAT_TTL_S = 35
HEARTBEAT_PREFIX = "tensor-judge:worker:"
# Every worker's last beat, kept after it stops (the field is the worker's node name).
HOSTS_KEY = "tensor-judge:hosts"
# A host not heard from for this long is dropped from the record (and from the pages).
HOST_FORGET_S = 24 * 3600
# ... and one that left cleanly, sooner (a restarted container comes back under a new name).
STOPPED_FORGET_S = 3600
_stop = threading.Event()


def redis_client() -> Any:

    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=3, socket_connect_timeout=3)


def beat_value(hostname: str, queues: list[str], concurrency: int | None, in_flight: int,
               at: float | None = None, stopped: bool = False) -> dict[str, Any]:
    """One worker's beat: its node name, host, queues, capacity, tasks running, time."""
    from judge_site.worker.engine import host_name

    return {"hostname": hostname, "host": host_name(), "queues": queues,
            "concurrency": concurrency, "in_flight": in_flight, "pid": os.getpid(),
            "at": time.time() if at is None else at, "stopped": stopped}


def record(client: Any, beat: dict[str, Any]) -> None:
    """Write ``beat``: the live key (expires) and the worker's field in the record of hosts."""
    value = json.dumps(beat)
    if beat.get("stopped"):
        client.delete(HEARTBEAT_PREFIX + beat["hostname"])
    else:
        client.set(HEARTBEAT_PREFIX + beat["hostname"], value, ex=HEARTBEAT_TTL_S)
    client.hset(HOSTS_KEY, beat["hostname"], value)


def _in_flight() -> int:
    """Tasks this worker runs now (its main process knows every pool process's)."""
    try:
        from celery.worker import state

        return len(state.active_requests)
    except Exception:  # noqa: BLE001  (a figure for the dashboard only)
        return 0


def _beat(hostname: str, queues: list[str], concurrency: int | None) -> None:
    client = redis_client()
    while not _stop.is_set():
        try:
            record(client, beat_value(hostname, queues, concurrency, _in_flight()))
        except Exception as exc:  # Redis away for a moment: the next beat tries again
            logger.warning("worker heartbeat failed: %s", exc)
        _stop.wait(HEARTBEAT_EVERY_S)


def _concurrency(sender: Any) -> int | None:
    """Judgings the worker runs at once: its pool's processes (``sender`` is the Consumer at
    worker_ready, the WorkController at worker_shutdown), else its configured concurrency."""
    owners: list[Any] = [sender, getattr(sender, "controller", None)]
    for owner in owners:
        try:
            value = owner.pool.num_processes
        except Exception:  # noqa: BLE001  (no pool yet, or one that does not say)
            value = getattr(owner, "concurrency", None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _queues(sender: Any) -> list[str]:
    try:
        return sorted(sender.app.amqp.queues.consume_from)
    except Exception:  # noqa: BLE001  (the names are for the dashboard only)
        return []


@worker_ready.connect
def _start_heartbeat(sender: Any = None, **_: Any) -> None:
    """Every worker writes a key with a short expiry every few seconds; the dashboard counts
    the live ones (a worker busy judging in a solo pool still beats: this is a thread)."""
    hostname = str(getattr(sender, "hostname", "") or f"worker@{os.uname().nodename}")
    _stop.clear()
    threading.Thread(target=_beat, args=(hostname, _queues(sender), _concurrency(sender)),
                     daemon=True, name="heartbeat").start()


ALIVE_EVERY_S = 5.0


def touch_alive(path: str) -> None:
    try:
        Path(path).touch()
    except OSError as exc:  # the health check will say so; judging goes on
        logger.warning("cannot touch the alive file %s: %s", path, exc)


@worker_ready.connect
def _start_alive_file(sender: Any = None, **_: Any) -> None:
    """Touch JUDGE_ALIVE_FILE now and then every ALIVE_EVERY_S from the worker's main loop:
    ``sender`` is the worker's Consumer (celery/apps/worker.py), whose timer fires only while
    that loop turns. Unset: nothing."""
    path = os.environ.get("JUDGE_ALIVE_FILE", "")
    if not path:
        return
    touch_alive(path)
    sender.timer.call_repeatedly(ALIVE_EVERY_S, touch_alive, (path,))


@worker_shutdown.connect
def _stop_heartbeat(sender: Any = None, **_: Any) -> None:
    _stop.set()
    hostname = str(getattr(sender, "hostname", "") or "")
    if hostname:
        try:
            record(redis_client(), beat_value(hostname, _queues(sender), _concurrency(sender), 0,
                                              stopped=True))
        except Exception:  # noqa: BLE001
            pass

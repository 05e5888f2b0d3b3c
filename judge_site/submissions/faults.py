"""The faults a judging outlives: a database or broker away for a while (a restart: waited out and
retried, never a verdict) and a worker that dies mid-judging (its heartbeat stops; the reaper,
reaper.py, gives the judging to another worker)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import InterfaceError, OperationalError, connections
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from judge_site.submissions.models import Status, Submission

log = logging.getLogger(__name__)
T = TypeVar("T")

# While it judges, a worker refreshes the submission's heartbeat_at this often; the reaper
# takes a judging whose heartbeat is older than settings.JUDGE_HEARTBEAT_STALE_S as lost.
HEARTBEAT_EVERY_S = 5.0
# A write the judging cannot do without (the claim, the verdict) waits this long for a
# database that went away (a restart) before the task gives up and the reaper takes over.
DB_WAIT_S = 120.0

# Transient faults of the database or the broker: waited out and retried, never a verdict.
DB_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    KombuOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
    ConnectionError,
    TimeoutError,
)
TRANSIENT_ERRORS = DB_ERRORS + BROKER_ERRORS


def drop_connections() -> None:
    """Close this thread's database connections (outside a transaction) so that the next query
    reconnects, instead of failing again on a connection the database has closed."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close()


def db_retry(what: str, write: Callable[[], T], wait_s: float = DB_WAIT_S) -> T:
    """``write()``, retried with backoff for up to ``wait_s`` while the database is unavailable
    (a restart: "the database system is shutting down", connection refused); then raised."""
    deadline = time.monotonic() + wait_s
    delay_s = 0.5
    while True:
        try:
            return write()
        except DB_ERRORS as exc:
            if time.monotonic() + delay_s > deadline:
                raise
            log.warning(
                "%s: the database is unavailable (%s); again in %.1f s", what, exc, delay_s
            )
            drop_connections()
            time.sleep(delay_s)
            delay_s = min(delay_s * 2, 5.0)


class Heartbeat:
    """A thread that refreshes ``heartbeat_at`` of the submission this worker judges, every
    HEARTBEAT_EVERY_S, as long as it holds the claim (attempt token). A worker that dies stops
    beating; the reaper then gives the judging to another worker in about
    JUDGE_HEARTBEAT_STALE_S, not at the task's hard time limit."""

    def __init__(self, submission_id: int, token: Any) -> None:
        self._mine = Submission.objects.filter(
            pk=submission_id, attempt_token=token, status=Status.RUNNING
        )
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"heartbeat-{submission_id}", daemon=True
        )

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            while not self._stop.wait(HEARTBEAT_EVERY_S):
                try:
                    if not self._mine.update(heartbeat_at=timezone.now()):
                        return  # the claim is gone (reaped, or finished): nothing to keep alive
                except DB_ERRORS as exc:
                    log.warning("heartbeat: the database is unavailable (%s)", exc)
                    drop_connections()
        finally:
            connections.close_all()  # this thread's own connections

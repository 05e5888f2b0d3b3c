"""Redis, Celery and the maintenance queues: JSON only, late acks, one task at a time per
process, queues by resource (cpu, gpu, rejudge, maintenance)."""

from __future__ import annotations

import ssl
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import ImproperlyConfigured

from judge_site.env import envbool, envfloat, envint, envlist, envstr, redact_url

REDIS_URL = envstr("REDIS_URL", "redis://127.0.0.1:6379/0")
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(
        f"REDIS_URL={redact_url(REDIS_URL)!r} is not a Redis URL: use redis://HOST:6379/0"
    )
CELERY_BROKER_URL = REDIS_URL
# TLS to the main host's Redis from a worker host (docs/hosts.md, "TLS between hosts"):
# rediss://...?ssl_cert_reqs=required&ssl_ca_certs=PATH. redis-py's clients read the query;
# Celery's broker (kombu would take rediss:// without checking the certificate) and result
# backend are given the same: the server's certificate and name are always checked.
if REDIS_URL.startswith("rediss://"):
    CELERY_BROKER_USE_SSL = {
        "ssl_cert_reqs": ssl.CERT_REQUIRED,
        "ssl_ca_certs": parse_qs(urlsplit(REDIS_URL).query).get("ssl_ca_certs", [None])[-1],
    }
    CELERY_REDIS_BACKEND_USE_SSL = CELERY_BROKER_USE_SSL
# The cache every web process shares (leaderboards, keyed by the aggregates' generations, so an
# event that changes a board makes a new key: judge_site/submissions/selectors.py). A Redis
# that is down costs speed, never an error page.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "judge-cache",
        "TIMEOUT": 300,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
}
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker's stop: docker/entrypoint.sh maps SIGTERM to Celery's cold shutdown, whose soft part
# lets the running judgings go on this long, then cancels them (acks_late: back to the queue,
# judged again by the next worker). Keep it well below compose's stop_grace_period (60 s).
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = envfloat("CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT_S", "10")
CELERY_TASK_SOFT_TIME_LIMIT = envint("CELERY_TASK_SOFT_TIME_LIMIT", "300")
CELERY_TASK_TIME_LIMIT = envint("CELERY_TASK_TIME_LIMIT", "360")
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 240}
# Redis or Postgres restarting never strands a judging (services.submission_judge,
# submission_reap_stuck): workers and beat reconnect to the broker for as long as it takes, a
# judging refreshes its heartbeat while it runs, and the reaper gives a judging whose heartbeat
# is older than JUDGE_HEARTBEAT_STALE_S, or that waited JUDGE_REQUEUE_AFTER_S in "queued" with
# no message in the broker, to a worker again.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A judging keeps running while Redis restarts; its verdict goes to Postgres.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 3,
    "interval_start": 0.2,
    "interval_step": 0.5,
    "interval_max": 1.0,
}
JUDGE_HEARTBEAT_STALE_S = envint("JUDGE_HEARTBEAT_STALE_S", "30")
JUDGE_REQUEUE_AFTER_S = envint("JUDGE_REQUEUE_AFTER_S", "45")
JUDGE_REAP_EVERY_S = envint("JUDGE_REAP_EVERY_S", "15")
# The reaper runs on a queue of its own, consumed by the worker embedded with celery beat
# (compose: the beat service), so it never waits behind a queue of judgings.
JUDGE_MAINTENANCE_QUEUE = envstr("JUDGE_MAINTENANCE_QUEUE", "maintenance")
# The aggregates the pages read are kept with every verdict; this periodic recomputation
# repairs anything written behind their back (a raw SQL fix, a restored backup).
JUDGE_STATS_RECONCILE_EVERY_S = envint("JUDGE_STATS_RECONCILE_EVERY_S", "3600")
CELERY_TASK_ROUTES = {
    "submissions.reap_stuck": {"queue": JUDGE_MAINTENANCE_QUEUE},
    "submissions.reconcile_stats": {"queue": JUDGE_MAINTENANCE_QUEUE},
}
# LTI grade pushes (judge_site/lti/grades.py) and roster reads go to this queue (the beat's
# worker consumes the maintenance queue); pending pushes older than LTI_GRADE_RESEND_AFTER_S are
# queued again every LTI_GRADE_SWEEP_EVERY_S, so a push survives any restart.
LTI_GRADE_QUEUE = envstr("LTI_GRADE_QUEUE", JUDGE_MAINTENANCE_QUEUE)
LTI_GRADE_SWEEP_EVERY_S = envint("LTI_GRADE_SWEEP_EVERY_S", "300")
LTI_GRADE_RESEND_AFTER_S = envint("LTI_GRADE_RESEND_AFTER_S", "120")
# Origins besides the registered platforms' own that may frame the LTI pages (an LMS serving
# its pages from another host than its issuer's), comma-separated: https://lms.example.edu
LTI_FRAME_ANCESTORS = envlist("LTI_FRAME_ANCESTORS", "")
CELERY_BEAT_SCHEDULE = {
    "resend pending LTI grade pushes": {
        "task": "lti.sweep_grade_pushes",
        "schedule": float(LTI_GRADE_SWEEP_EVERY_S),
        "options": {"queue": JUDGE_MAINTENANCE_QUEUE, "expires": float(LTI_GRADE_SWEEP_EVERY_S)},
    },
    "reconcile the aggregates": {
        "task": "submissions.reconcile_stats",
        "schedule": float(JUDGE_STATS_RECONCILE_EVERY_S),
        "options": {"queue": JUDGE_MAINTENANCE_QUEUE,
                    "expires": float(JUDGE_STATS_RECONCILE_EVERY_S)},
    },
    "reap stuck submissions": {
        "task": "submissions.reap_stuck",
        "schedule": float(JUDGE_REAP_EVERY_S),
        # A reaper run that waited longer than its period (no maintenance worker) is dropped.
        "options": {"queue": JUDGE_MAINTENANCE_QUEUE, "expires": float(JUDGE_REAP_EVERY_S)},
    }
}
CELERY_TASK_DEFAULT_QUEUE = "cpu"
# Queues by resource: "cpu" (the default) and "gpu" (one worker process per GPU, -Q gpu).
CELERY_TASK_CREATE_MISSING_QUEUES = True
CELERY_RESULT_EXPIRES = envint("CELERY_RESULT_EXPIRES_S", "3600")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", "False")


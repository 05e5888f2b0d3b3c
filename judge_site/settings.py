"""Settings, read from the environment only. Every variable is listed in .env.example."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

# Every reader raises ConfigError (an ImproperlyConfigured naming the variable), which
# manage.py, the gunicorn hook (docker/gunicorn.conf.py) and the entrypoint print as one line.
from judge_site.env import (
    envbool,
    envchoice,
    envfloat,
    envint,
    envlist,
    envstr,
    redact_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = envbool("DEBUG", "False")

_INSECURE_KEY = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = envstr("SECRET_KEY", _INSECURE_KEY if DEBUG else "")
if not DEBUG and (not SECRET_KEY or SECRET_KEY == _INSECURE_KEY or len(SECRET_KEY) < 32):
    raise ImproperlyConfigured(
        "SECRET_KEY is missing, too short or the development default: set SECRET_KEY to a "
        "random string of 50 characters (or set DEBUG=true for local development)."
    )

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "localhost")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "judge_site.core",
    "judge_site.accounts",
    "judge_site.catalog",
    "judge_site.submissions",
    "judge_site.staff",
    "judge_site.courses",
    "judge_site.hints",
    "judge_site.similarity",
    # LTI 1.3 (docs/lti.md): django-lti's registrations, deployments and launches, then ours.
    "lti_tool",
    "judge_site.lti",
]

MIDDLEWARE = [
    # Worker hosts fetching problem versions (the workers' token), before the Host check:
    # they reach web by an address ALLOWED_HOSTS need not list (catalog/worker_views.py).
    "judge_site.catalog.worker_views.WorkerPackagesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Every 429, whoever answered it, carries a Retry-After (judge_site/core/middleware.py).
    "judge_site.core.middleware.RetryAfterMiddleware",
    # Under /api/: JSON errors whatever answered, never cached (judge_site/core/middleware.py).
    "judge_site.core.middleware.ApiResponseMiddleware",
    "judge_site.core.middleware.QueryStringMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After the user is known: a logged-in user's pages are Cache-Control: private, no-store.
    "judge_site.core.middleware.PrivatePagesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "judge_site.urls"
WSGI_APPLICATION = "judge_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "judge_site" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "judge_site.accounts.context_processors.signup",
            ],
        },
    },
]

# DATABASE_URL selects Postgres (postgres://user@host:5432/name); with nothing set the quick
# local start uses an embedded SQLite file.
_database_url = envstr("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
try:
    # conn_health_checks: a kept connection is checked before a request or task reuses it, so
    # that a Postgres restart costs no request a 500 on a connection the database closed.
    DATABASES = {
        "default": dj_database_url.parse(_database_url, conn_max_age=60, conn_health_checks=True)
    }
except Exception:  # dj_database_url raises several types for garbage input
    raise ImproperlyConfigured(
        f"DATABASE_URL={redact_url(_database_url)!r} is not a database URL: use "
        "postgres://USER@HOST:5432/NAME or sqlite:///PATH"
    ) from None
if not DATABASES["default"].get("ENGINE"):
    raise ImproperlyConfigured(
        f"DATABASE_URL={redact_url(_database_url)!r} names no supported database engine"
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = envint(
        "DATABASE_CONNECT_TIMEOUT_S", "5"
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Django's database sessions, read in a compiled query (judge_site/accounts/sessions.py).
SESSION_ENGINE = "judge_site.accounts.sessions"

# django-axes first: it refuses a locked-out login before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
# "problem_list" is the catalog's page at "/"; judge_site/core/urls.py provides a placeholder
# under that name until the catalog defines it.
LOGIN_REDIRECT_URL = "problem_list"
LOGOUT_REDIRECT_URL = "problem_list"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(envstr("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "judge_site" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Production hardening; each can be relaxed from the environment behind a TLS proxy.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "False" if DEBUG else "True")
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", "False" if DEBUG else "True")
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", "False" if DEBUG else "True")
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000")
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "False")
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if envbool("TRUST_X_FORWARDED_PROTO", "False") else None
)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# Behind one reverse proxy that appends the client's address to X-Forwarded-For: take that
# (rightmost) entry as the client, for the login, sign-up and judging throttles. Never set it
# without such a proxy: clients could then choose their own address.
TRUST_X_FORWARDED_FOR = envbool("TRUST_X_FORWARDED_FOR", "False")
# The unix socket gunicorn also binds (docker/gunicorn.conf.py) for the compose stack's proxy
# (docker/proxy-entrypoint.sh), which sees the clients' real addresses and writes
# X-Forwarded-For itself. Only a process given the socket can connect to it, so a request that
# came over it (it has no peer address) takes its client address from that header, whatever
# TRUST_X_FORWARDED_FOR says; requests over TCP never do unless TRUST_X_FORWARDED_FOR is set.
JUDGE_PROXY_SOCKET = envstr("JUDGE_PROXY_SOCKET", "")

# Content-Security-Policy: only the site's own scripts, styles, fonts and images (KaTeX and
# CodeMirror are served from /static/vendor/, see scripts/build_assets); no inline code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        # Style *attributes* only: KaTeX sets them on the SVG and MathML nodes it builds (a
        # square root's width, a box's border). An attribute can neither run code nor load
        # anything (images, fonts and connections stay 'self'); <style> elements stay refused.
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# security.W021 (HSTS preload) is silenced by default: submitting a domain to the browsers'
# preload list is a commitment the instance owner makes, not a default we can take for them.
# Serving plain HTTP on a closed network (the compose default) means also silencing W008, W012
# and W016 there, which docker-compose.yml does explicitly.
SILENCED_SYSTEM_CHECKS = envlist("SILENCED_SYSTEM_CHECKS", "security.W021")

# Celery: JSON only, late acks, one task at a time per process, queues by resource.
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
    import ssl
    from urllib.parse import parse_qs, urlsplit

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

# The judge.
JUDGE_PROBLEMS_DIR = Path(envstr("JUDGE_PROBLEMS_DIR", str(BASE_DIR / "problems")))
# "docker" in production; "local" runs submissions in a plain subprocess, which is NOT a
# security boundary and is refused when DEBUG is off unless JUDGE_ALLOW_LOCAL_BACKEND=true.
JUDGE_BACKEND = envstr("JUDGE_BACKEND", "local" if DEBUG else "docker")
JUDGE_ALLOW_LOCAL_BACKEND = envbool("JUDGE_ALLOW_LOCAL_BACKEND", "False")
if JUDGE_BACKEND == "local" and not DEBUG and not JUDGE_ALLOW_LOCAL_BACKEND:
    raise ImproperlyConfigured(
        "JUDGE_BACKEND=local runs untrusted code without isolation and is refused when DEBUG "
        "is off: use JUDGE_BACKEND=docker, or set JUDGE_ALLOW_LOCAL_BACKEND=true knowingly."
    )
JUDGE_SANDBOX_IMAGE = envstr("JUDGE_SANDBOX_IMAGE", "tensor-judge-sandbox:cpu")
JUDGE_SANDBOX_IMAGES = envlist("JUDGE_SANDBOX_IMAGES", "triton=tensor-judge-sandbox:triton")  # requirement=image, for problem.toml `requires`
JUDGE_GPU_IDS = envlist("JUDGE_GPU_IDS", "")
# Whether workers consume the "gpu" queue (compose: --profile gpu). Without them a GPU problem
# whose kernels are Triton is judged by the CPU workers in Triton's interpreter, and any other
# GPU problem is refused at submit time (routing.judging_route); its page says so.
JUDGE_GPU_ENABLED = envbool("JUDGE_GPU_ENABLED", "false")
# Sandboxes each worker process keeps started ahead (docker, CPU problems): a judging then
# skips the container start and the runner's torch import. 0 = none.
JUDGE_SANDBOX_POOL_SIZE = envint("JUDGE_SANDBOX_POOL_SIZE", "0")
# CPUs of each worker process's sandboxes (their timed phases never share a core): "auto" (one
# CPU each, in turn), "0;1" / "0-1;2-3" (one set per process, in turn), "" (no pinning).
JUDGE_SANDBOX_CPUSETS = envstr("JUDGE_SANDBOX_CPUSETS", "")
# Where the host-wide timing locks live (one file per CPU set): shared by every worker of a host.
JUDGE_LOCK_DIR = envstr("JUDGE_LOCK_DIR", "")
# Where the host's cgroup file system is seen (a sandbox's CPU time, read around the baseline's
# timed calls: sandbox/host/backends/cgroup_cpu.py); "" = not read (the quiet cap then always applies
# where the baseline waited). Compose mounts the host's read-only at /host/sys/fs/cgroup.
JUDGE_CGROUP_ROOT = envstr("JUDGE_CGROUP_ROOT", "/sys/fs/cgroup")
# The name of this machine in each result's environment.host (default: its host name).
JUDGE_HOST_NAME = envstr("JUDGE_HOST_NAME", "")
# Worker hosts (scripts/up --join-line): the password of the Postgres role they log in as
# (judge_site/core/worker_role.py; the web container applies it at start). Empty: no LOGIN.
JUDGE_WORKER_DB_PASSWORD = envstr("JUDGE_WORKER_DB_PASSWORD", "")
# A sandbox older than this is an orphan of a worker that died mid-judging: none lives longer
# than a warm pool's idle time (5 minutes) plus the task's hard time limit; a minute's margin.
# Workers remove such sandboxes from their Docker engine.
JUDGE_ORPHAN_AGE_S = envint("JUDGE_ORPHAN_AGE_S", str(CELERY_TASK_TIME_LIMIT + 360))
# Where authors' code (a package's tests.py and reference, a practice folder's test.py) runs:
# in a confined grader process of its own (sandbox/grader/process.py: with docker, a container
# of JUDGE_GRADER_IMAGE without network, Docker socket or credentials), never in the worker.
# "auto": confined with the docker backend, in-process with the local one (development, which
# is no security boundary anyway); "always" / "never" force it.
JUDGE_CONFINE_AUTHORS = envchoice("JUDGE_CONFINE_AUTHORS", "auto", ("auto", "always", "never"))
# The image of the confined grader: the worker's own (torch and the grader's code); "" = the
# image of the container this worker runs in, asked from the Docker engine.
JUDGE_GRADER_IMAGE = envstr("JUDGE_GRADER_IMAGE", "")
# A host command (manage.py judge, check_problems, import_practice) confines an untrusted
# package's authors' code in the worker image's grader; the repository's own problems/ opt out
# while this is true (judge_site/submissions/host_confinement.py).
JUDGE_TRUST_CATALOG = envbool("JUDGE_TRUST_CATALOG", "True")
JUDGE_GRADER_MEMORY_MIB = envint("JUDGE_GRADER_MEMORY_MIB", "4096")
JUDGE_MAX_CODE_BYTES = envint("JUDGE_MAX_CODE_BYTES", "65536")
JUDGE_RATE_LIMIT_PER_MINUTE = envint("JUDGE_RATE_LIMIT_PER_MINUTE", "10")
# Write calls of the JSON API per user per minute (courses, exams; submissions have the limit
# above), 0 = no limit; judge_site/core/api.py.
JUDGE_API_WRITES_PER_MINUTE = envint("JUDGE_API_WRITES_PER_MINUTE", "60")
# Judgings waiting or running at once: per user, and per client address across accounts
# (a classroom behind one NAT address shares the second; 0 = no cap).
JUDGE_MAX_QUEUED_PER_USER = envint("JUDGE_MAX_QUEUED_PER_USER", "8")
JUDGE_MAX_QUEUED_PER_ADDRESS = envint("JUDGE_MAX_QUEUED_PER_ADDRESS", "64")

# Accounts. Sign-up: open, invite (a code from JUDGE_SIGNUP_INVITE_CODES is asked) or closed
# (staff create accounts in the admin).
JUDGE_SIGNUP = envchoice("JUDGE_SIGNUP", "open", ("open", "invite", "closed"))
JUDGE_SIGNUP_INVITE_CODES = envlist("JUDGE_SIGNUP_INVITE_CODES", "")
if JUDGE_SIGNUP == "invite" and not JUDGE_SIGNUP_INVITE_CODES:
    raise ImproperlyConfigured(
        "JUDGE_SIGNUP=invite needs JUDGE_SIGNUP_INVITE_CODES (one or more codes, comma-separated)"
    )
# At most this many accounts created from one client address per JUDGE_SIGNUP_WINDOW_MIN.
JUDGE_SIGNUPS_PER_ADDRESS = envint("JUDGE_SIGNUPS_PER_ADDRESS", "10")
JUDGE_SIGNUP_WINDOW_MIN = envint("JUDGE_SIGNUP_WINDOW_MIN", "60")
# Log-in throttle (django-axes, on the site's and the admin's log-in; the rules are explained
# in judge_site/accounts/lockout.py): after this many failed attempts for one account from one
# client address, and from one address for any accounts, that pair (that address) is refused
# for the cool-off time, even with the right password. JUDGE_LOGIN_LOCKOUT lists what is
# counted: "username", "ip_address", or both joined by "+" (that pair), comma-separated; a plain
# "username" lets anyone lock any account (the owner included) and is not advised.
AXES_FAILURE_LIMIT = envint("JUDGE_LOGIN_FAILURE_LIMIT", "10")
AXES_COOLOFF_TIME = timedelta(minutes=envint("JUDGE_LOGIN_COOLOFF_MIN", "15"))
AXES_LOCKOUT_PARAMETERS = [
    item.split("+") if "+" in item else item
    for item in envlist("JUDGE_LOGIN_LOCKOUT", "username+ip_address,ip_address")
]
# The slower rate per account, from all addresses together (0: none). The address the account
# last logged in from is exempt, so that it cannot lock its owner out.
JUDGE_LOGIN_USERNAME_FAILURE_LIMIT = envint("JUDGE_LOGIN_USERNAME_FAILURE_LIMIT", "50")
AXES_HANDLER = "judge_site.accounts.lockout.LockoutHandler"
if not AXES_LOCKOUT_PARAMETERS or any(
    part not in ("username", "ip_address")
    for item in AXES_LOCKOUT_PARAMETERS
    for part in ([item] if isinstance(item, str) else item)
):
    raise ImproperlyConfigured(
        "JUDGE_LOGIN_LOCKOUT lists username, ip_address or username+ip_address, comma-separated"
    )
AXES_LOCKOUT_CALLABLE = "judge_site.accounts.views.locked_out"
AXES_CLIENT_IP_CALLABLE = "judge_site.core.inputs.client_ip"
AXES_USERNAME_CALLABLE = "judge_site.accounts.usernames.axes_username"
# A success does not clear the failures: axes would clear every failure from that address,
# so an attacker could reset the counters by logging in to an account of their own.
AXES_RESET_ON_SUCCESS = False
# A lockout ends after the cool-off even while someone keeps guessing (else anyone could keep
# a student's account locked for ever).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_HTTP_RESPONSE_CODE = 429
# No start-up banner or per-request detail in the logs (commands print one-line errors);
# lockouts are still logged as warnings.
AXES_VERBOSE = False

# E-mail (docs/email.md): password reset links, address verification, rejudge notices. Django's
# own names. No EMAIL_HOST (the default): the site sends no mail, and its pages say so.
EMAIL_HOST = envstr("EMAIL_HOST", "")
EMAIL_PORT = envint("EMAIL_PORT", "587")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", "True")  # STARTTLS on EMAIL_PORT
EMAIL_HOST_USER = envstr("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envstr("EMAIL_HOST_PASSWORD", "")
DEFAULT_FROM_EMAIL = envstr("DEFAULT_FROM_EMAIL", "Tensor Judge <judge@localhost>")
EMAIL_TIMEOUT = 10  # s: a mail server that hangs holds the maintenance worker this long at most
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.dummy.EmailBackend"
)
# Sign-up asks for an address and mails a signed link to confirm it; only confirmed addresses
# get password reset mail. Off: the address is optional and used as given.
JUDGE_EMAIL_VERIFY = envbool("JUDGE_EMAIL_VERIFY", "False")
if JUDGE_EMAIL_VERIFY and not EMAIL_HOST:
    raise ImproperlyConfigured(
        "JUDGE_EMAIL_VERIFY=true needs EMAIL_HOST (the mail server that sends the links)"
    )
# The site's address as students reach it (https://judge.example.org), for links in mail sent
# by workers (rejudge notices); empty: those mails name the submissions without links.
JUDGE_SITE_URL = envstr("JUDGE_SITE_URL", "").rstrip("/")
# Password reset requests within JUDGE_RESET_WINDOW_MIN: per e-mail address asked for, and per
# client address (a class behind one NAT shares it, hence the larger default).
JUDGE_RESETS_PER_EMAIL = envint("JUDGE_RESETS_PER_EMAIL", "10")
JUDGE_RESETS_PER_CLIENT = envint("JUDGE_RESETS_PER_CLIENT", "30")
JUDGE_RESET_WINDOW_MIN = envint("JUDGE_RESET_WINDOW_MIN", "60")
JUDGE_BENCH_TARGET_REL_ERROR = envfloat("JUDGE_BENCH_TARGET_REL_ERROR", "0.05")
# Staff: uploaded packages live here, one folder per version (back it up with the database).
JUDGE_PACKAGES_DIR = Path(envstr("JUDGE_PACKAGES_DIR", str(BASE_DIR / "media" / "packages")))
# Rejudges and package checks run on this queue, consumed by a worker of its own (compose:
# rejudge-worker), so they never wait in front of a student's judging on cpu/gpu.
JUDGE_REJUDGE_QUEUE = envstr("JUDGE_REJUDGE_QUEUE", "rejudge")
JUDGE_CHECK_QUEUE = envstr("JUDGE_CHECK_QUEUE", JUDGE_REJUDGE_QUEUE)
# Rejudges and checks of problems that can run on a GPU, while a GPU worker is alive: consumed by
# GPU workers only (compose gpu-worker), never re-timed on a CPU (submissions/routing.py).
JUDGE_GPU_REJUDGE_QUEUE = envstr("JUDGE_GPU_REJUDGE_QUEUE", "gpu-rejudge")
# /metrics answers staff holding staff.view_metrics (session or API token) and
# "Authorization: Bearer <this>" when set.
JUDGE_METRICS_TOKEN = envstr("JUDGE_METRICS_TOKEN", "")
# Worker hosts without a shared disk (judge_site/submissions/package_cache.py). On a worker
# host: the main host's web as this worker reaches it ("http://10.0.0.1:8000"); problem versions
# are then fetched by content hash and cached here, under a size cap (least recently used out).
# Unset: packages are read from this host's own folders.
JUDGE_PACKAGE_SOURCE = envstr("JUDGE_PACKAGE_SOURCE", "")
JUDGE_PACKAGE_CACHE_DIR = Path(
    envstr("JUDGE_PACKAGE_CACHE_DIR", str(JUDGE_PACKAGES_DIR / ".cache"))
)
JUDGE_PACKAGE_CACHE_MIB = envint("JUDGE_PACKAGE_CACHE_MIB", "1024")
# The secret worker hosts present to fetch packages (on the web and on every worker host);
# empty: /internal/packages/ is off.
JUDGE_WORKER_TOKEN = envstr("JUDGE_WORKER_TOKEN", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
}

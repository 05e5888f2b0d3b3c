"""Settings, read from the environment only. Every variable is listed in .env.example."""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

# Every reader raises ConfigError (an ImproperlyConfigured naming the variable), which
# manage.py, the gunicorn hook (docker/gunicorn.conf.py) and the entrypoint print as one line.
from judge_site.env import BASE_DIR, debug_mode, envbool, envint, envlist, envstr, redact_url

DEBUG = debug_mode()

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

# By concern (judge_site/config/): Redis and Celery, the judge, accounts and e-mail.
from judge_site.config.accounts import *  # noqa: E402,F403
from judge_site.config.judging import *  # noqa: E402,F403
from judge_site.config.queues import *  # noqa: E402,F403

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
}

"""Settings for the test suite: development defaults against the machine's real services.

pytest-django loads settings before any conftest.py runs, so the environment defaults for
tests are set here (setdefault: an exported variable still wins), then settings.py reads them.
Subprocesses started by tests (manage.py, celery workers) inherit the same environment.
"""

import os

os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ.setdefault("JUDGE_BACKEND", "local")

from judge_site.settings import *  # noqa: E402,F403

# Several test runs may share one Postgres (parallel developers, CI beside a dev run): give each
# run its own test database. Set in the environment so subprocesses of the run agree on it.
os.environ.setdefault("JUDGE_TEST_DB_NAME", f"test_judge_{os.getpid()}")
DATABASES["default"]["TEST"] = {"NAME": os.environ["JUDGE_TEST_DB_NAME"]}  # noqa: F405

# Django's advice for test suites: a fast password hasher. The production hasher (Django's
# PBKDF2, 1,000,000 iterations: 0.23 CPU-s a hash) cost the suite about 80 CPU-s of sign-ups,
# logins and test users. PBKDF2 stays second, so a password stored by a process with the real
# settings still checks; the compose stack runs the real settings, and its platform test
# asserts a sign-up there is stored with PBKDF2.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]

# Each test run keeps its cache to itself (tests/conftest.py empties it around every test).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# A worker shutting down removes the pooled sandboxes of its owner: this run's workers (the
# suite's own, celery workers it starts) must never take those of another run on the machine.
os.environ.setdefault("JUDGE_POOL_OWNER", f"tests-{os.getpid()}")

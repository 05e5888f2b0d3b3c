"""gunicorn settings for the web container (read with `gunicorn --config`).

The start-up hook checks the configuration and the database/Redis before any worker forks, so a
wrong DATABASE_URL or REDIS_URL is one line naming the variable instead of a trace per worker.
"""

from __future__ import annotations

import os
import sys
from typing import Any

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("WEB_THREADS", "2"))
timeout = int(os.environ.get("WEB_TIMEOUT_S", "60"))
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def on_starting(server: Any) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "judge_site.settings")
    import django
    from django.core.exceptions import ImproperlyConfigured

    try:
        django.setup()
        from judge_site.core.health import service_problems

        problems = service_problems()
    except ImproperlyConfigured as exc:
        problems = [f"configuration error: {exc}"]
    if problems:
        for line in problems:
            print(line, file=sys.stderr, flush=True)
        sys.exit(1)

"""gunicorn settings for the web container (read with `gunicorn --config`).

The start-up hook checks the configuration and the database/Redis before any worker forks, so a
wrong DATABASE_URL or REDIS_URL is one line naming the variable instead of a trace per worker.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# TCP for the compose network (the container's health check); and, in the compose stack, the
# unix socket its proxy forwards the clients' requests over (JUDGE_PROXY_SOCKET, a volume only
# web and the proxy mount): a request on it takes its client address from the X-Forwarded-For
# that the proxy wrote (judge_site/core/inputs.py, client_ip).
bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
if os.environ.get("JUDGE_PROXY_SOCKET"):
    bind.append(f"unix:{os.environ['JUDGE_PROXY_SOCKET']}")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("WEB_THREADS", "2"))
timeout = int(os.environ.get("WEB_TIMEOUT_S", "60"))
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn trusts every unix-socket peer's scheme headers (X-Forwarded-Proto/-Ssl/-Protocol)
# and underscore headers (SCRIPT_NAME): none of them decides anything here. Django alone reads
# X-Forwarded-Proto, and only with TRUST_X_FORWARDED_PROTO (SECURE_PROXY_SSL_HEADER).
secure_scheme_headers: dict[str, str] = {}
forwarder_headers = ""
# The client's address as the proxy gave it (%(h)s is empty on the unix socket).
access_log_format = (
    '%(h)s %({x-forwarded-for}i)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'
)


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
    from judge_site.accounts.mail import startup_line  # whether the site sends mail

    print(startup_line(), file=sys.stderr, flush=True)

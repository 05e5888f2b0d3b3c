"""The Celery app. Configuration comes from Django settings (CELERY_* names)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "judge_site.settings")

app = Celery("judge_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

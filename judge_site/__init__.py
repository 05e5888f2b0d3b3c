"""The Django project of the judge: settings, urls, the Celery app and the web apps."""

from judge_site.celery import app as celery_app

__all__ = ["celery_app"]

"""The web process has no torch (its image installs requirements/web.txt): every URL, admin and
task module of the site must import without it (beat runs from the web image). A module that imports sandbox.bench (torch) at its
top once broke the web image's build (collectstatic) while every test here passed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CODE = """
import sys
sys.modules["torch"] = None  # an import of torch raises ImportError, as in the web image
sys.modules["numpy"] = None
import django
django.setup()
from django.urls import get_resolver
from django.contrib import admin
get_resolver().url_patterns  # every view module
admin.autodiscover()
import judge_site.wsgi  # noqa: F401
from judge_site.celery import app  # beat runs from the web image: it imports every task module
app.loader.import_default_modules()
print("ok")
"""


def test_the_site_imports_without_torch() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CODE], cwd=REPO, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "judge_site.settings_test",
             "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]

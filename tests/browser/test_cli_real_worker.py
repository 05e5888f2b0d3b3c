"""The command-line client against the live server and a real worker with the real engine."""

from __future__ import annotations

import subprocess
import sys

import pytest
from browser_kit import PROBLEM_48, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def cli(url: str, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge_site.cli", "--url", url, "--token", token, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_cli_round_trips_submissions(live_server, problem48, judge_worker):
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    get_user_model().objects.create_user("erin", password="erin-pass-123")
    out = StringIO()
    call_command("create_api_token", "erin", stdout=out)
    token = out.getvalue().strip()

    listed = cli(live_server.url, token, "problems")
    assert listed.returncode == 0 and "embedding-tied-head-padding" in listed.stdout

    run = cli(
        live_server.url, token, "submit", "48", str(PROBLEM_48 / "starter.py"), "--mode", "run"
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "example_embed" in run.stdout and "verdict: WA" in run.stdout

    good = PROBLEM_48 / "solutions" / "AC" / "gather.py"
    submit = cli(live_server.url, token, "submit", "embedding-tied-head-padding", str(good))
    assert submit.returncode == 0, submit.stdout + submit.stderr
    assert "verdict: AC" in submit.stdout and "speedup:" in submit.stdout

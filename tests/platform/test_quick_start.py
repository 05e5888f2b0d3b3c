"""The README's quick start without Docker, as a newcomer runs it: DEBUG, SQLite, tasks run
inline, the local backend; ``migrate`` (the leaderboard's NULLS LAST index once stopped it on
SQLite: judge_site/core/indexes.py), ``sync_problems``, then a Run of problem 48 through the
site's own submit view, judged to AC. Nothing of the suite's settings reaches the commands: a
bare environment, the README's variables only, a database file of this test's own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
P48 = ROOT / "problems" / "048-embedding-tied-head-padding"

RUN_48 = """
import json
from pathlib import Path
from django.contrib.auth import get_user_model
from django.test import Client
from judge_site.submissions.models import Submission

user = get_user_model().objects.create_user("newcomer", password="a-long-pass-1234")
client = Client(HTTP_HOST="localhost")  # runserver's own host
client.force_login(user)
reply = client.post("/problems/48/submit", {"code": Path(CODE).read_text(), "mode": "run"})
found = Submission.objects.get(user=user)
print("RESULT " + json.dumps({"status": reply.status_code, "verdict": found.verdict,
                              "state": found.status, "tests": len(found.tests or [])}))
"""


@pytest.mark.slow
def test_the_readmes_quick_start_migrates_sqlite_and_judges_a_run(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    assert "export DEBUG=true CELERY_TASK_ALWAYS_EAGER=true" in readme  # the steps tested here
    assert "manage.py migrate && .venv/bin/python manage.py sync_problems" in readme
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DEBUG": "true",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        # The README's default is db.sqlite3 in the checkout; this test keeps its own file.
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=300, check=False,
        )
        assert done.returncode == 0, f"manage.py {args[0]}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    manage("migrate")
    synced = manage("sync_problems")
    assert re.search(r"synced .*: \d+ created", synced), synced
    code = P48 / "solutions" / "AC" / "gather.py"
    out = manage("shell", "-c", RUN_48.replace("CODE", repr(str(code))))
    result = json.loads(out.split("RESULT ", 1)[1].splitlines()[0])
    assert result == {"status": 302, "verdict": "AC", "state": "done", "tests": result["tests"]}
    assert result["tests"] > 0, result

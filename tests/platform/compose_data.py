"""Helpers of the compose data tests (backup/restore, upgrade): what a stack's data is, a
checkout copied as a `git pull` would leave it, and the migration the simulated upgrade brings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

# Everything a student or an admin would miss after a restore or an upgrade: accounts with
# their password hashes, API tokens, drafts, submissions (code by hash, verdicts).
SNAPSHOT = """
import hashlib, json
from django.contrib.auth import get_user_model
from judge_site.accounts.models import ApiToken
from judge_site.catalog.models import Draft
from judge_site.submissions.models import Submission
print("SNAPSHOT", json.dumps({
    "users": sorted([u.username, u.password] for u in get_user_model().objects.all()),
    "tokens": sorted(  # the digest (stored hashed since issue 41; before, the key itself)
        [t.user.username, getattr(t, "digest", None) or hashlib.sha256(t.key.encode()).hexdigest()]
        for t in ApiToken.objects.select_related("user")
    ),
    "drafts": sorted(
        [d.user.username, d.problem.number, d.code]
        for d in Draft.objects.select_related("user", "problem")
    ),
    "submissions": sorted(
        [s.id, s.user.username, s.problem.number, s.mode, s.status, s.verdict,
         hashlib.sha256(s.code.encode()).hexdigest()]
        for s in Submission.objects.select_related("user", "problem")
    ),
}))
"""

# A student with a password, an API token, a draft and a judged submission of problem 48.
ADD_STUDENT = """
from django.contrib.auth import get_user_model
from judge_site.accounts.models import ApiToken
from judge_site.catalog.models import Draft, Problem
from judge_site.submissions.models import Submission
user = get_user_model().objects.create_user("{name}", password="{password}")
ApiToken.objects.create(user=user, key=ApiToken.generate_key())
problem = Problem.objects.get(number=48)
Draft.objects.create(user=user, problem=problem, code="# {name}'s draft\\n")
Submission.objects.create(
    user=user, problem=problem, code="# {name}'s code\\n", status="done", verdict="WA"
)
print("ADDED")
"""

DELETE_STUDENT = """
from django.contrib.auth import get_user_model
get_user_model().objects.filter(username="{name}").delete()
print("DELETED")
"""


def parse_snapshot(output: str) -> dict:
    return json.loads(output[output.index("SNAPSHOT ") + 9 :].splitlines()[0])


def copy_checkout(root: Path, dest: Path) -> None:
    """The checkout as `git pull` leaves it (its files, not the ignored ones), plus what
    scripts/up keeps between runs: the built assets and the wheelhouses (hard links)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.decode().split("\0")):
        source = root / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    vendor = "judge_site/static/vendor"
    shutil.copytree(root / vendor, dest / vendor)
    (dest / ".cache").mkdir(exist_ok=True)
    subprocess.run(
        ["cp", "-al", str(root / ".cache" / "wheelhouse"), str(dest / ".cache" / "wheelhouse")],
        check=True,
    )


UPGRADE_MIGRATION = '''"""Test-only migration of the upgrade test (tests/platform/compose_data.py): proves that an
upgrade's migration runs on the data already there."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("submissions", "{leaf}")]
    operations = [
        migrations.RunSQL(
            "CREATE TABLE upgrade_probe AS SELECT id FROM submissions_submission",
            reverse_sql="DROP TABLE upgrade_probe",
        )
    ]
'''


def add_upgrade_migration(checkout: Path) -> str:
    """Add a migration on top of the submissions app's latest; returns its name."""
    folder = checkout / "judge_site" / "submissions" / "migrations"
    leaf = max(p.stem for p in folder.glob("[0-9][0-9][0-9][0-9]_*.py"))
    name = f"{int(leaf[:4]) + 1:04d}_upgrade_probe"
    (folder / f"{name}.py").write_text(UPGRADE_MIGRATION.format(leaf=leaf))
    return name

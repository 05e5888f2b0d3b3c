"""problem_sync_all: idempotent, keyed by number, never loses submissions, no hidden data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from judge_site.catalog.models import Problem
from judge_site.catalog.services import problem_sync_all
from judge_site.submissions.models import Submission
from sandbox.grader.package import PackageError

CATALOG = Path(__file__).resolve().parents[2] / "problems"
P48 = CATALOG / "048-embedding-tied-head-padding"

pytestmark = pytest.mark.django_db


@pytest.fixture
def problems_dir(tmp_path: Path) -> Path:
    root = tmp_path / "problems"
    root.mkdir()
    shutil.copytree(P48, root / P48.name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_it_creates_then_reports_unchanged(problems_dir: Path) -> None:
    assert problem_sync_all(problems_dir) == [(48, "created")]
    assert problem_sync_all(problems_dir) == [(48, "unchanged")]
    problem = Problem.objects.get(number=48)
    assert problem.slug == "embedding-tied-head-padding"
    assert problem.chapter == "Embedding and output layers"
    assert problem.device == "cpu" and problem.difficulty == "easy"
    assert "embedding" in problem.tags
    assert problem.statement_md.startswith("# Embedding, tied LM head and padding")
    assert "def embed(" in problem.starter_code
    assert problem.manifest["benchmark"]["baseline"] == "kernels.embedding:embed"
    assert len(problem.version) == 16 and problem.published


def test_it_stores_public_examples_but_no_hidden_case(problems_dir: Path) -> None:
    problem_sync_all(problems_dir)
    examples = Problem.objects.get(number=48).public_examples
    names = [e["name"] for e in examples]
    assert "example_embed" in names and "example_pad_batch_left" in names
    assert all(e["note"] for e in examples)
    assert all(n.startswith("example_") for n in names)  # hidden cases are not named example_*
    assert "embed_negative_id" not in str(examples)


def test_it_updates_a_changed_package_and_keeps_its_submissions(problems_dir: Path) -> None:
    problem_sync_all(problems_dir)
    problem = Problem.objects.get(number=48)
    alice = get_user_model().objects.create_user("alice", password="x-unused-1")
    submission = Submission.objects.create(
        user=alice, problem=problem, code="x = 1", problem_version=problem.version
    )
    old_version = problem.version
    statement = problems_dir / P48.name / "statement.md"
    statement.write_text(statement.read_text() + "\nOne more line.\n")
    assert problem_sync_all(problems_dir) == [(48, "updated")]
    problem.refresh_from_db()
    assert problem.version != old_version and problem.statement_md.endswith("One more line.\n")
    submission.refresh_from_db()
    assert submission.problem_id == problem.pk and submission.problem_version == old_version
    assert problem_sync_all(problems_dir) == [(48, "unchanged")]


def test_it_unpublishes_a_removed_package_instead_of_deleting(problems_dir: Path) -> None:
    problem_sync_all(problems_dir)
    problem = Problem.objects.get(number=48)
    alice = get_user_model().objects.create_user("alice", password="x-unused-1")
    Submission.objects.create(user=alice, problem=problem, code="x = 1")
    shutil.rmtree(problems_dir / P48.name)
    assert problem_sync_all(problems_dir) == [(48, "unpublished")]
    problem.refresh_from_db()
    assert not problem.published and problem.submissions.count() == 1
    assert problem_sync_all(problems_dir) == []
    # The package comes back: synced again, but publishing stays an admin's decision.
    shutil.copytree(P48, problems_dir / P48.name, ignore=shutil.ignore_patterns("__pycache__"))
    assert problem_sync_all(problems_dir) == [(48, "unchanged")]
    problem.refresh_from_db()
    assert not problem.published


def test_it_keeps_an_admins_unpublishing(problems_dir: Path) -> None:
    problem_sync_all(problems_dir)
    Problem.objects.filter(number=48).update(published=False)
    statement = problems_dir / P48.name / "statement.md"
    statement.write_text(statement.read_text() + "\nEdited.\n")
    assert problem_sync_all(problems_dir) == [(48, "updated")]
    assert not Problem.objects.get(number=48).published


def test_it_refuses_two_packages_with_one_number(problems_dir: Path) -> None:
    shutil.copytree(problems_dir / P48.name, problems_dir / "048-a-copy")
    with pytest.raises(PackageError, match="numbers"):
        problem_sync_all(problems_dir)
    assert not Problem.objects.exists()


def test_it_syncs_the_whole_catalog_with_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("sync_problems", "--dir", str(CATALOG))
    first = capsys.readouterr().out
    assert "48 created" in first
    call_command("sync_problems", "--dir", str(CATALOG))
    second = capsys.readouterr().out
    assert "created" not in second.replace("0 created", "") and "48 unchanged" in second
    count = sum(1 for p in CATALOG.iterdir() if (p / "problem.toml").is_file())
    assert Problem.objects.filter(published=True).count() == count


def test_sync_needs_no_torch_and_keeps_the_statement_order() -> None:
    """The web process has no torch: reading a package for the site must not import it."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch': raise ImportError('no torch here')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import django; django.setup()\n"
        "from judge_site.catalog.services import public_examples\n"
        "from sandbox.grader.package import load_package\n"
        f"print([e['name'] for e in public_examples(load_package({str(P48)!r}))])\n"
    )
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="judge_site.settings", DEBUG="true")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=str(CATALOG.parent), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str([
        "example_embed", "example_embed_pad_minus_one", "example_embed_out_of_range",
        "example_last_token_logits", "example_pad_batch_right", "example_pad_batch_left",
    ])

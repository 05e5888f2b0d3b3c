from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def packages_dir(settings: Any, tmp_path: Path) -> Path:
    """Uploaded packages go to a folder of the test's own."""
    settings.JUDGE_PACKAGES_DIR = tmp_path / "packages"
    return settings.JUDGE_PACKAGES_DIR


@pytest.fixture
def staff_tasks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    """Replaces the staff enqueues with a list of (task, id, queue)."""
    from judge_site.staff.services import packages, rejudge

    calls: list[tuple[str, int, str]] = []
    monkeypatch.setattr(packages, "_enqueue_check",
                        lambda vid: calls.append(("check", vid, packages.settings.JUDGE_CHECK_QUEUE)))
    monkeypatch.setattr(rejudge, "_enqueue_item",
                        lambda iid: calls.append(("rejudge", iid, rejudge.settings.JUDGE_REJUDGE_QUEUE)))
    return calls

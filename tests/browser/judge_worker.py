"""A real Celery worker for the browser suite, on a queue of its own.

Run as ``python tests/browser/judge_worker.py QUEUE``. It is the project's Celery app and task;
the only differences from production are the queue name (so that a test never takes, or
leaves, tasks on the shared ``cpu`` queue) and, when ``JUDGE_BROWSER_FAKE_ENGINE=1``, the fake
engine of tests/judge_cast.py instead of the real one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "judge_site.settings")

import django  # noqa: E402

django.setup()

from judge_site.celery import app  # noqa: E402
from judge_site.submissions import services  # noqa: E402


def main() -> None:
    queue = sys.argv[1]
    services.queue_for = lambda problem: queue  # type: ignore[assignment]
    if os.environ.get("JUDGE_BROWSER_FAKE_ENGINE") == "1":
        from judge_cast import FakeEngine

        services._judge_source = FakeEngine()  # type: ignore[assignment]
        services._load_package = lambda path: object()  # type: ignore[assignment]
    app.worker_main(
        [
            "worker",
            "-Q",
            queue,
            "--pool",
            "solo",
            "--concurrency",
            "1",
            "-l",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"{queue}@%h",
        ]
    )


if __name__ == "__main__":
    main()

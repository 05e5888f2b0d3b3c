"""Where a judging's time goes: the site adds its phases (queue wait, prepare, progress writes,
save) to the engine's in the stored environment."""

from __future__ import annotations

import pytest

from judge_site.submissions import services
from judge_site.submissions.models import Submission

pytestmark = pytest.mark.django_db(transaction=True)

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"


def test_it_stores_the_site_phases_beside_the_engines(alice, problem, enqueued, fake_engine):
    sub = services.submission_create(alice, problem, GOOD, "submit")
    assert services.submission_judge(sub.pk).action == "judged"
    env = Submission.objects.get(pk=sub.pk).environment
    assert env["backend"] == "fake"  # the engine's environment is kept
    phases = env["phases"]
    assert {"queue_wait", "prepare", "progress_writes", "save"} <= set(phases)
    assert all(isinstance(v, float) and v >= 0 for v in phases.values())

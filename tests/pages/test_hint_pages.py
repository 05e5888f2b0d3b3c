"""Hints keyed to the failing check on the result and problem pages, and the staff's counts."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from judge_cast import make_problem

from judge_site.hints.models import HintSettings, HintShown
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db(transaction=True)

TESTS_PY = '''
raise SystemExit("never run")
CASES = [
    Case("example_embed", "embed", make, public=True, note="n"),
    Case("secret_pad_case", "embed", make, tags=("padding",)),
    Case("example_batch", "pad_batch", make, public=True, note="n"),
]
'''
HINTS = {
    "after": 2,
    "cooldown_s": 120,
    "ladders": [
        {"check": "secret_pad_case", "ladder": ["Padding positions give zeros.", "Zero them after the gather."]},
        {"check": "example_batch", "ladder": ["Mind the side."]},
    ],
}


@pytest.fixture
def hinted(tmp_path: Path):
    (tmp_path / "tests.py").write_text(TESTS_PY)
    return make_problem(
        48, package_dir=str(tmp_path),
        manifest={"limits": {"time_s": 5, "memory_mib": 1024}, "hints": HINTS},
    )


def failing(user, problem, code: str, minutes_ago: float, *failed: str, verdict: str = "WA") -> Submission:
    tests = [
        {"name": n, "public": n.startswith("example"), "verdict": "WA" if n in failed else "AC"}
        for n in ("example_embed", "secret_pad_case", "example_batch")
    ]
    sub = Submission.objects.create(
        user=user, problem=problem, code=code, mode="submit", status=Status.DONE,
        verdict=verdict, tests=tests,
    )
    Submission.objects.filter(pk=sub.pk).update(created_at=timezone.now() - timedelta(minutes=minutes_ago))
    return sub


def hint_box(page: str) -> str:
    found = re.search(r'<section class="block hints".*?</section>', page, re.S)
    return found.group(0) if found else ""


def test_two_distinct_failures_and_the_cool_down_show_the_first_hint(client: Client, alice, hinted) -> None:
    client.force_login(alice)
    first = failing(alice, hinted, "v1", 10, "secret_pad_case")
    assert hint_box(client.get(f"/submissions/{first.pk}/").content.decode()) == ""
    second = failing(alice, hinted, "v2", 9, "secret_pad_case")
    box = hint_box(client.get(f"/submissions/{second.pk}/").content.decode())
    assert "Padding positions give zeros." in box and "hint 1 of 2" in box
    assert "Zero them" not in box  # one rung at a time
    # a hidden case is never named: the student reads "a hidden test" and the author's text
    assert "secret_pad_case" not in box and "a hidden test" in box
    problem_page = client.get("/problems/48/").content.decode()
    assert "Padding positions give zeros." in hint_box(problem_page)
    client.get(f"/submissions/{second.pk}/")
    assert HintShown.objects.filter(user=alice).count() == 1  # recorded once, shown again


def test_the_same_code_resubmitted_does_not_unlock_a_hint(client: Client, alice, hinted) -> None:
    client.force_login(alice)
    failing(alice, hinted, "same", 10, "secret_pad_case")
    sub = failing(alice, hinted, "same\n\n", 9, "secret_pad_case")
    assert hint_box(client.get(f"/submissions/{sub.pk}/").content.decode()) == ""
    assert not HintShown.objects.exists()


NO_WORK = "def embed(ids, table):\n    raise NotImplementedError\n"


def test_a_resubmit_that_changes_only_a_comment_does_not_climb_the_ladder(
    client: Client, alice, hinted
) -> None:
    client.force_login(alice)
    failing(alice, hinted, NO_WORK, 10, "secret_pad_case")
    sub = failing(alice, hinted, "# try again\n" + NO_WORK.replace("\n    raise", "  # here\n\n    raise"),
                  9, "secret_pad_case")
    assert hint_box(client.get(f"/submissions/{sub.pk}/").content.decode()) == ""
    assert not HintShown.objects.exists()  # where one Submit left the ladder
    real = failing(alice, hinted, NO_WORK.replace("raise NotImplementedError", "return table[ids]"),
                   8, "secret_pad_case")
    assert "Padding positions" in hint_box(client.get(f"/submissions/{real.pk}/").content.decode())
    assert HintShown.objects.filter(user=alice).count() == 1


def test_no_hint_before_the_cool_down(client: Client, alice, hinted) -> None:
    client.force_login(alice)
    failing(alice, hinted, "v1", 0.5, "secret_pad_case")
    sub = failing(alice, hinted, "v2", 0.2, "secret_pad_case")
    assert hint_box(client.get(f"/submissions/{sub.pk}/").content.decode()) == ""
    HintSettings.objects.create(problem=hinted, cooldown_s=10)  # the admin shortens it
    assert "Padding positions" in hint_box(client.get(f"/submissions/{sub.pk}/").content.decode())


def test_a_public_check_is_named_and_other_checks_keep_their_own_count(client: Client, alice, hinted) -> None:
    client.force_login(alice)
    failing(alice, hinted, "v1", 10, "example_batch")
    sub = failing(alice, hinted, "v2", 9, "example_batch", "secret_pad_case")
    box = hint_box(client.get(f"/submissions/{sub.pk}/").content.decode())
    assert "example_batch" in box and "Mind the side." in box
    assert "Padding positions" not in box  # that check failed once only


def test_hints_switched_off_show_nothing(client: Client, alice, hinted) -> None:
    client.force_login(alice)
    HintSettings.objects.create(problem=hinted, enabled=False)
    failing(alice, hinted, "v1", 10, "secret_pad_case")
    sub = failing(alice, hinted, "v2", 9, "secret_pad_case")
    assert hint_box(client.get(f"/submissions/{sub.pk}/").content.decode()) == ""
    hinted.manifest = {**hinted.manifest, "hints": {**HINTS, "enabled": False}}
    hinted.save()
    HintSettings.objects.filter(problem=hinted).update(enabled=True)
    assert hint_box(client.get("/problems/48/").content.decode()) == ""
    assert not HintShown.objects.exists()


def test_another_users_result_page_shows_no_hint(client: Client, alice, bob, charlie, hinted) -> None:
    failing(alice, hinted, "v1", 10, "secret_pad_case")
    sub = failing(alice, hinted, "v2", 9, "secret_pad_case")
    client.force_login(charlie)
    assert hint_box(client.get(f"/submissions/{sub.pk}/").content.decode()) == ""


def test_the_staff_see_how_often_a_hint_was_shown_and_then_ac(client: Client, alice, bob, charlie, hinted) -> None:
    for user in (alice, bob):
        client.force_login(user)
        failing(user, hinted, "v1", 10, "secret_pad_case")
        sub = failing(user, hinted, "v2", 9, "secret_pad_case")
        client.get(f"/submissions/{sub.pk}/")
    ac = Submission.objects.create(
        user=alice, problem=hinted, code="v3", mode="submit", status=Status.DONE, verdict="AC", tests=[]
    )
    Submission.objects.filter(pk=ac.pk).update(created_at=timezone.now() + timedelta(seconds=1))
    settings = HintSettings.objects.create(problem=hinted)
    charlie.is_superuser = True
    charlie.save()
    client.force_login(charlie)
    page = client.get(f"/admin/hints/hintsettings/{settings.pk}/change/").content.decode()
    row = re.search(r"<tr><td>secret_pad_case</td>.*?</tr>", page)
    assert row is not None, page[:2000]
    assert row.group(0) == "<tr><td>secret_pad_case</td><td>1</td><td>2</td><td>1</td><td>1.0</td></tr>"

"""The busiest pages' reads in compiled queries (judge_site/core/prepared.py) give exactly what
the ORM's querysets give: the problem page's one query, a user's history and its count, the
problem list; and the problem page's statistics section, cached under the counters, follows
every change of them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone
from judge_cast import make_problem, make_user
from test_problem_statistics import judged

from judge_site.catalog import selectors as catalog_selectors
from judge_site.core.prepared import PreparedQuery
from judge_site.hints.models import HintSettings
from judge_site.submissions import selectors
from judge_site.submissions.models import Mode, Status, Submission

pytestmark = pytest.mark.django_db


def _history(user, problem, n: int, **extra) -> None:
    now = timezone.now()
    verdicts = ["AC", "WA", "RE", "", "TLE"]
    rows = [
        Submission(
            user=user, problem=problem, code=f"# {i}", mode=Mode.SUBMIT if i % 3 else Mode.RUN,
            status=Status.DONE if verdicts[i % 5] else Status.QUEUED, verdict=verdicts[i % 5],
            benchmark={"speedup": 1.0 + i / 10} if i % 5 == 0 else None, **extra,
        )
        for i in range(n)
    ]
    Submission.objects.bulk_create(rows)
    for i, sub in enumerate(rows):  # distinct times, newest last
        Submission.objects.filter(pk=sub.pk).update(created_at=now - timedelta(minutes=n - i))


def test_a_prepared_query_gives_the_rows_of_its_queryset(alice, bob, problem) -> None:
    _history(alice, problem, 7)
    _history(bob, problem, 3)

    def build(mode: str, user_id: int):
        return (
            Submission.objects.filter(user_id=user_id, mode=mode)
            .order_by("-created_at")
            .values_list("pk", "created_at", "verdict", "benchmark", "tests", "problem__tags")
        )

    prepared = PreparedQuery(build, user_id=int)
    for user in (alice, bob):
        for mode in (Mode.SUBMIT, Mode.RUN):
            assert prepared.rows(mode, user_id=user.pk) == list(build(mode, user.pk))
    flat = PreparedQuery(
        lambda user_id: Submission.objects.filter(user_id=user_id).order_by("pk")
        .values_list("benchmark", flat=True), user_id=int,
    )
    assert flat.rows(user_id=alice.pk) == list(
        Submission.objects.filter(user=alice).order_by("pk").values_list("benchmark", flat=True)
    )


def test_a_prepared_query_refuses_a_parameter_that_is_not_in_its_sql(alice) -> None:
    prepared = PreparedQuery(lambda user_id: Submission.objects.values_list("pk"), user_id=int)
    with pytest.raises(ValueError, match="user_id"):
        prepared.rows(user_id=alice.pk)
    with pytest.raises(TypeError):
        PreparedQuery(lambda user_id: Submission.objects.filter(user_id=user_id)
                      .values_list("pk"), user_id=int).rows(user_id="1")


def test_a_prepared_query_that_can_match_nothing_sends_no_sql(
    alice, problem, django_assert_num_queries
) -> None:
    _history(alice, problem, 2)
    prepared = PreparedQuery(
        lambda user_id: Submission.objects.filter(user_id=user_id).values_list("pk")[0:0],
        user_id=int,
    )
    with django_assert_num_queries(0):
        assert prepared.rows(user_id=alice.pk) == []


def test_the_problem_page_reads_the_problem_its_counters_and_hint_overrides_at_once(
    alice, bob, problem, enqueued, django_assert_num_queries
) -> None:
    staff = make_user("staffer", staff=True)
    hidden = make_problem(50, slug="hidden", published=False)
    fields = [f.attname for f in problem._meta.concrete_fields]

    with django_assert_num_queries(1):
        page = catalog_selectors.problem_page(alice, 48)
    assert page is not None and (page.counters, page.hint_override) == (None, None)
    expected = catalog_selectors.problem_get(alice, 48)
    assert [getattr(page.problem, f) for f in fields] == [getattr(expected, f) for f in fields]
    assert not page.problem._state.adding

    judged(bob, problem, "AC", 1.5)
    HintSettings.objects.create(problem=problem, enabled=False, cooldown_s=3.0)
    page = catalog_selectors.problem_page(alice, 48)
    assert page is not None
    assert page.counters == (
        problem.stats.generation, 1, 1, 1, 1
    ) and page.hint_override == (False, None, 3.0)

    assert catalog_selectors.problem_page(alice, 50) is None  # unpublished: staff only
    found = catalog_selectors.problem_page(staff, 50)
    assert found is not None and found.problem.pk == hidden.pk
    assert catalog_selectors.problem_page(alice, 2**40) is None


@pytest.mark.parametrize("verdict", ["", "AC", "WA", "queued", "running", "bogus"])
def test_ones_history_counts_and_pages_as_the_orm_does(alice, bob, problem, verdict) -> None:
    other = make_problem(49, slug="other")
    _history(alice, problem, 57)
    _history(alice, other, 8)
    _history(bob, problem, 5)
    fields = selectors.HISTORY_FIELDS
    for chosen in (None, problem, other):
        own = selectors.OwnHistory(alice.pk, chosen, verdict)
        expected = selectors.submission_history(alice, problem=chosen, verdict=verdict).values(
            *(k for k, v in fields.items() if k == v),
            **{k: F(v) for k, v in fields.items() if k != v},
        )
        assert own.count() == expected.count()
        for window in (slice(0, 50), slice(50, 100), slice(0, 0)):
            assert own[window] == list(expected[window])


def test_the_history_page_says_how_many_in_all(client, alice, bob, problem) -> None:
    _history(alice, problem, 57)
    _history(bob, problem, 5)
    client.force_login(alice)
    assert "57 in all" in client.get("/submissions/").content.decode()
    assert "page 2 of 2" in client.get("/submissions/?page=2").content.decode()
    client.force_login(make_user("newcomer"))
    page = client.get("/submissions/").content.decode()
    assert "0 in all" in page and "No submissions yet." in page


def test_the_problem_list_reads_problems_counters_and_tags_at_once(
    alice, problem, enqueued, django_assert_num_queries
) -> None:
    make_problem(51, slug="other", title="Another one", difficulty="hard", tags=["softmax"])
    make_problem(50, slug="hidden", published=False, tags=["secret"])
    judged(alice, problem, "WA")
    with django_assert_num_queries(1):
        listed = catalog_selectors.problems_listed(alice)
    assert [p.number for p in listed] == [48, 51]
    assert (listed[0].accepted, listed[0].judged) == (0, 1)
    assert "secret" not in catalog_selectors.problem_tags(listed)
    assert "softmax" in catalog_selectors.problem_tags(listed)
    staff = make_user("staffer", staff=True)
    assert [p.number for p in catalog_selectors.problems_listed(staff)] == [48, 50, 51]


def test_the_problem_pages_statistics_follow_a_faster_best_with_the_same_counts(
    client, alice, bob, problem, enqueued
) -> None:
    judged(bob, problem, "AC", 1.2)
    assert "p = 1.5: 0%" in client.get("/problems/48/").content.decode()
    sub = Submission.objects.get(user=bob, problem=problem)
    Submission.objects.filter(pk=sub.pk).update(benchmark={**sub.benchmark, "speedup": 1.8})
    from judge_site.submissions.aggregates import stats_refresh_pairs

    stats_refresh_pairs([(bob.pk, problem.pk)])  # what a rejudge's write does
    assert "p = 1.5: 100%" in client.get("/problems/48/").content.decode()
    judged(alice, problem, "WA")
    assert "2 submitted, 1 accepted (50%)" in client.get("/problems/48/").content.decode()


def test_the_poll_reads_ones_own_submission_as_the_submission_page_does(
    alice, bob, problem, enqueued, django_assert_num_queries
) -> None:
    judged(alice, problem, "AC", 1.3)
    done = Submission.objects.get(user=alice)
    queued = Submission.objects.create(user=alice, problem=problem, code="x", mode=Mode.RUN)
    for sub in (done, queued):
        with django_assert_num_queries(1):
            own = selectors.own_submission(alice, sub.pk)
        assert own is not None
        full = selectors.submission_get_for(alice, sub.pk)
        assert selectors.submission_to_json(own, alice) == selectors.submission_to_json(full, alice)
    assert selectors.own_submission(bob, done.pk) is None
    assert selectors.own_submission(alice, 2**40) is None


def test_the_api_finds_a_tokens_user_and_refuses_an_inactive_one(client, alice, bob) -> None:
    from judge_cast import token_for

    headers = {"HTTP_AUTHORIZATION": f"Token {token_for(alice)}"}
    assert client.get("/api/v1/submissions/123456", **headers).status_code == 404
    alice.is_active = False
    alice.save()
    assert client.get("/api/v1/submissions/123456", **headers).status_code == 401


def test_a_session_is_read_until_it_expires_or_ends(client, alice) -> None:
    from django.contrib.sessions.models import Session

    from judge_site.accounts.sessions import SessionStore

    client.force_login(alice)
    assert "My submissions" in client.get("/").content.decode()
    key = client.session.session_key
    assert SessionStore(key).load()  # the logged-in user's data
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert SessionStore(key).load() == {}
    page = client.get("/").content.decode()
    assert "My submissions" not in page and "Log in" in page
    client.force_login(alice)
    client.post("/accounts/logout/")
    assert "Log in" in client.get("/").content.decode()
    assert SessionStore("no-such-session-key").load() == {}


def test_a_login_and_a_password_change_keep_the_session_a_logout_ends_it(client, alice) -> None:
    response = client.post("/accounts/login/", {"username": "alice", "password": "alice-pass-123"})
    assert response.status_code == 302
    assert '<span class="username">alice</span>' in client.get("/").content.decode()
    client.post("/accounts/password_change/", {
        "old_password": "alice-pass-123", "new_password1": "a-new-pass-4567-xyz",
        "new_password2": "a-new-pass-4567-xyz",
    })
    assert '<span class="username">alice</span>' in client.get("/").content.decode()
    other = type(client)()
    other.force_login(alice)
    alice.set_password("changed-elsewhere-890")
    alice.save()  # another session's user changed the password: this one ends
    assert '<span class="username">alice</span>' not in other.get("/").content.decode()
    client.post("/accounts/logout/")
    assert '<span class="username">alice</span>' not in client.get("/").content.decode()

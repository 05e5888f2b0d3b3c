"""The log-in throttle (django-axes with judge_site/accounts/lockout.py): the pair
username+address and the address lock at JUDGE_LOGIN_FAILURE_LIMIT; a slower count per
username from every address never locks the address the account last logged in from."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.test import Client
from judge_cast import ACCOUNT_PASSWORD as PASSWORD

pytestmark = pytest.mark.django_db

ELSEWHERE = "198.51.100.7"
ATTACKER = "203.0.113.66"
User = get_user_model()


def logged_in_username(client: Client) -> str | None:
    user = client.get("/healthz").wsgi_request.user
    return user.get_username() if user.is_authenticated else None


@pytest.fixture
def low_limit(settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    settings.JUDGE_LOGIN_USERNAME_FAILURE_LIMIT = 5


HOME = "192.0.2.10"  # where alice logs in from, usually


def log_in(
    client: Client, username: str, password: str, address: str, path: str = "/accounts/login/"
) -> Any:
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def test_a_guesser_locks_only_their_own_pair_not_the_owner(
    client: Client, mailed_alice: AbstractUser, low_limit: None
) -> None:
    for _ in range(2):
        assert log_in(client, "alice", "wrong-guess", ATTACKER).status_code == 200
    # The failure that reaches the limit already answers with the lockout page.
    response = log_in(client, "alice", "wrong-guess", ATTACKER)
    assert response.status_code == 429
    assert int(response["Retry-After"]) == 15 * 60
    page = response.content.decode()
    assert "Too many failed log-ins" in page and "15 minutes" in page
    assert "ask your instructor or an administrator" in page
    assert log_in(client, "alice", PASSWORD, ATTACKER).status_code == 429
    assert logged_in_username(client) is None
    response = log_in(client, "alice", PASSWORD, ELSEWHERE)  # the owner, elsewhere: not locked
    assert response.status_code == 302 and logged_in_username(client) == "alice"


def test_many_addresses_lock_an_account_but_not_from_its_usual_address(
    client: Client, mailed_alice: AbstractUser, low_limit: None
) -> None:
    assert log_in(client, "alice", PASSWORD, HOME).status_code == 302
    client.post("/accounts/logout/")
    for i in range(4):
        assert log_in(client, "alice", "wrong-guess", f"203.0.113.{i + 1}").status_code == 200
    response = log_in(client, "alice", "wrong-guess", "203.0.113.5")  # the 5th, per username
    assert response.status_code == 429 and "from many addresses" in response.content.decode()
    assert response.has_header("Retry-After")
    assert log_in(client, "alice", PASSWORD, ELSEWHERE).status_code == 429
    assert logged_in_username(client) is None
    response = log_in(client, "alice", PASSWORD, HOME)
    assert response.status_code == 302 and logged_in_username(client) == "alice"


def test_an_account_never_logged_in_has_no_exempt_address(
    client: Client, mailed_alice: AbstractUser, low_limit: None
) -> None:
    for i in range(5):
        log_in(client, "alice", "wrong-guess", f"203.0.113.{i + 1}")
    assert log_in(client, "alice", PASSWORD, HOME).status_code == 429


def test_the_account_counter_ignores_the_case_of_the_username(
    client: Client, mailed_alice: AbstractUser, low_limit: None
) -> None:
    for i, name in enumerate(["Alice", "ALICE", "alice", "aLiCe", "ALICE"]):
        log_in(client, name, "wrong-guess", f"203.0.113.{i + 1}")
    assert log_in(client, "alice", PASSWORD, ELSEWHERE).status_code == 429


def test_it_locks_an_address_that_tries_many_accounts(
    client: Client, mailed_alice: AbstractUser, mailed_bob: AbstractUser, low_limit: None
) -> None:
    for name in ["carol", "dave", "erin"]:
        log_in(client, name, "wrong-guess", ATTACKER)
    assert log_in(client, "bob", PASSWORD, ATTACKER).status_code == 429
    response = log_in(client, "alice", PASSWORD, ELSEWHERE)  # another address: not locked
    assert response.status_code == 302 and logged_in_username(client) == "alice"


def test_a_forged_forwarded_for_header_does_not_escape_the_address_lock(
    client: Client, mailed_bob: AbstractUser, low_limit: None
) -> None:
    for i in range(3):
        client.post(
            "/accounts/login/",
            {"username": f"user{i}", "password": "x"},
            REMOTE_ADDR=ATTACKER,
            HTTP_X_FORWARDED_FOR=f"192.0.2.{i}",
        )
    assert log_in(client, "bob", PASSWORD, ATTACKER).status_code == 429


def test_the_admin_log_in_is_throttled_too(
    client: Client, superuser: AbstractUser, low_limit: None
) -> None:
    admin_login = "/admin/login/?next=/admin/"
    for _ in range(3):
        log_in(client, "root", "wrong-guess", ATTACKER, admin_login)
    response = log_in(client, "root", PASSWORD, ATTACKER, admin_login)
    assert response.status_code == 429
    assert b"Too many failed log-ins" in response.content
    assert log_in(client, "root", PASSWORD, ELSEWHERE, admin_login).status_code == 302


def test_the_lock_ends_after_the_cool_off(
    client: Client, mailed_alice: AbstractUser, low_limit: None
) -> None:
    from axes.models import AccessAttempt
    from django.utils import timezone

    for _ in range(3):
        log_in(client, "alice", "wrong-guess", ATTACKER)
    assert log_in(client, "alice", PASSWORD, ATTACKER).status_code == 429
    # As if the cool-off had passed (no sleeping in tests).
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert log_in(client, "alice", PASSWORD, ATTACKER).status_code == 302


def test_logging_in_to_an_own_account_does_not_reset_the_counters(
    client: Client, mailed_alice: AbstractUser, mailed_bob: AbstractUser, low_limit: None
) -> None:
    log_in(client, "alice", "wrong-guess", ATTACKER)
    log_in(client, "alice", "wrong-guess", ATTACKER)
    assert log_in(client, "bob", PASSWORD, ATTACKER).status_code == 302  # the attacker's own
    client.post("/accounts/logout/")
    assert log_in(client, "alice", "wrong-guess", ATTACKER).status_code == 429
    assert log_in(client, "alice", PASSWORD, ATTACKER).status_code == 429


def test_failures_below_the_limit_do_not_lock(
    client: Client, mailed_alice: AbstractUser, low_limit: None
) -> None:
    for _ in range(2):
        log_in(client, "alice", "wrong-guess", ATTACKER)
    assert log_in(client, "alice", PASSWORD, ATTACKER).status_code == 302

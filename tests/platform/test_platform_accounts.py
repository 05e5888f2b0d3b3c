"""Sign up, log in, log out, password change, the admin, and ensure_admin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management import call_command
from django.test import Client
from judge_cast import ACCOUNT_PASSWORD as PASSWORD

from judge_site.accounts.models import ApiToken

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
User = get_user_model()


def logged_in_username(client: Client) -> str | None:
    user = client.get("/healthz").wsgi_request.user
    return user.get_username() if user.is_authenticated else None


def test_it_signs_up_and_logs_the_new_user_in(client: Client) -> None:
    page = client.get("/accounts/signup/")
    assert page.status_code == 200
    assert b'name="username"' in page.content and b"site.css" in page.content
    response = client.post(
        "/accounts/signup/",
        {"username": "dora", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert User.objects.filter(username="dora").exists()
    assert logged_in_username(client) == "dora"


def test_it_rejects_a_sign_up_with_mismatched_passwords(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "dora", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert not User.objects.filter(username="dora").exists()


def test_it_rejects_a_taken_username(client: Client, mailed_alice: AbstractUser) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "alice", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert User.objects.filter(username="alice").count() == 1


def test_it_logs_in_and_out(client: Client, mailed_alice: AbstractUser) -> None:
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert logged_in_username(client) == "alice"
    assert client.get("/accounts/logout/").status_code == 405  # logout is POST only
    assert logged_in_username(client) == "alice"
    assert client.post("/accounts/logout/").status_code == 302
    assert logged_in_username(client) is None


def test_it_refuses_a_wrong_password(client: Client, mailed_alice: AbstractUser) -> None:
    response = client.post("/accounts/login/", {"username": "alice", "password": "nope-nope-1"})
    assert response.status_code == 200
    assert logged_in_username(client) is None


def test_it_changes_the_password(client: Client, mailed_alice: AbstractUser) -> None:
    client.force_login(mailed_alice)
    new = "another-long-passphrase-77"
    response = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert client.get(response["Location"]).status_code == 200
    mailed_alice.refresh_from_db()
    assert mailed_alice.check_password(new)
    assert logged_in_username(client) == "alice"  # the session survives the change


def test_password_change_needs_a_login(client: Client) -> None:
    response = client.get("/accounts/password/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_staff_reach_the_admin_and_students_do_not(
    client: Client, mailed_alice: AbstractUser, superuser: AbstractUser
) -> None:
    client.force_login(mailed_alice)
    assert client.get("/admin/").status_code == 302
    client.post("/accounts/logout/")
    response = client.post("/admin/login/?next=/admin/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 302
    page = client.get("/admin/")
    assert page.status_code == 200 and b"Site administration" in page.content


def test_the_menu_shows_the_user_and_the_admin_link(
    client: Client, superuser: AbstractUser
) -> None:
    client.force_login(superuser)
    page = client.get("/accounts/password/")
    assert b"root" in page.content and b'href="/admin/"' in page.content


def test_ensure_admin_creates_then_leaves_alone_then_updates(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_ADMIN_USER", "boss")
    monkeypatch.setenv("JUDGE_ADMIN_PASSWORD", PASSWORD)
    monkeypatch.setenv("JUDGE_ADMIN_EMAIL", "boss@example.org")
    call_command("ensure_admin")
    call_command("ensure_admin")
    monkeypatch.setenv("JUDGE_ADMIN_PASSWORD", "a-rotated-password-9")
    call_command("ensure_admin")
    out = capsys.readouterr().out
    assert "'boss' created" in out and "'boss' unchanged" in out and "'boss' updated" in out
    boss = User.objects.get(username="boss")
    assert User.objects.filter(username="boss").count() == 1
    assert boss.is_staff and boss.is_superuser and boss.email == "boss@example.org"
    assert boss.check_password("a-rotated-password-9")


def test_ensure_admin_does_nothing_without_a_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_ADMIN_USER", raising=False)
    call_command("ensure_admin")
    assert not User.objects.filter(is_superuser=True).exists()


def test_ensure_admin_refuses_a_missing_password(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.management.base import CommandError

    monkeypatch.setenv("JUDGE_ADMIN_USER", "boss")
    monkeypatch.delenv("JUDGE_ADMIN_PASSWORD", raising=False)
    with pytest.raises(CommandError, match="JUDGE_ADMIN_PASSWORD"):
        call_command("ensure_admin")
    assert not User.objects.filter(username="boss").exists()


ELSEWHERE = "198.51.100.7"
ATTACKER = "203.0.113.66"


def log_in(client: Client, username: str, password: str, address: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password},
                       REMOTE_ADDR=address)


# --- sign-up: throttle per address, invitation codes, closed -----------------------------------


def sign_up(client: Client, username: str, address: str = ELSEWHERE, **extra: str) -> Any:
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    response = client.post("/accounts/signup/", data, REMOTE_ADDR=address)
    client.post("/accounts/logout/")
    return response


def test_sign_up_is_throttled_per_address(client: Client, settings: Any) -> None:
    settings.JUDGE_SIGNUPS_PER_ADDRESS = 2
    assert sign_up(client, "dora", ATTACKER).status_code == 302
    assert sign_up(client, "emil", ATTACKER).status_code == 302
    refused = sign_up(client, "fred", ATTACKER)
    assert refused.status_code == 429
    assert "Too many accounts were created from your network address" in refused.content.decode()
    assert 0 < int(refused["Retry-After"]) <= 60 * 60  # when the oldest leaves the window
    assert not User.objects.filter(username="fred").exists()
    assert sign_up(client, "fred", ELSEWHERE).status_code == 302
    from judge_site.accounts.models import Registration

    assert Registration.objects.get(user__username="dora").client_ip == ATTACKER


class _SlowForm:
    """A sign-up form whose save() waits for the test's word before creating the user."""

    def __init__(self, username: str, saving: threading.Event | None = None,
                 go_on: threading.Event | None = None) -> None:
        self.username, self.saving, self.go_on = username, saving, go_on

    def save(self) -> AbstractUser:
        if self.saving and self.go_on:
            self.saving.set()
            assert self.go_on.wait(30)
        return User.objects.create_user(self.username, password=PASSWORD)


@pytest.mark.django_db(transaction=True)
def test_concurrent_sign_ups_from_one_address_count_each_other(settings: Any) -> None:
    from django.db import connection

    from judge_site.accounts import services
    from judge_site.accounts.models import Registration

    settings.JUDGE_SIGNUPS_PER_ADDRESS = 1
    saving, go_on = threading.Event(), threading.Event()
    outcome: dict[str, str] = {}

    def sign_up_in_thread(name: str, form: _SlowForm) -> None:
        try:
            services.signup_create(form, ATTACKER)  # type: ignore[arg-type]
            outcome[name] = "created"
        except services.SignupRefused as exc:
            outcome[name] = f"refused {exc.status}"
        finally:
            connection.close()

    first = threading.Thread(target=sign_up_in_thread,
                             args=("first", _SlowForm("first", saving, go_on)))
    first.start()
    assert saving.wait(30)  # the first has counted 0 and is saving, inside its transaction
    second = threading.Thread(target=sign_up_in_thread, args=("second", _SlowForm("second")))
    second.start()
    try:
        second.join(0.5)
        assert second.is_alive(), "the second counted while the first was saving: not atomic"
    finally:
        go_on.set()
        first.join(30)
        second.join(30)
    assert outcome == {"first": "created", "second": "refused 429"}
    assert list(Registration.objects.values_list("user__username", flat=True)) == ["first"]


def test_invite_mode_asks_for_a_valid_code(client: Client, settings: Any) -> None:
    settings.JUDGE_SIGNUP = "invite"
    settings.JUDGE_SIGNUP_INVITE_CODES = ["course-42", "lab-7"]
    page = client.get("/accounts/signup/").content.decode()
    assert 'name="invite_code"' in page
    missing = sign_up(client, "dora")
    assert missing.status_code == 200 and not User.objects.filter(username="dora").exists()
    wrong = sign_up(client, "dora", invite_code="course-43")
    assert "invitation code is not valid" in wrong.content.decode()
    assert not User.objects.filter(username="dora").exists()
    assert sign_up(client, "dora", invite_code="lab-7").status_code == 302
    from judge_site.accounts.models import Registration

    assert Registration.objects.get(user__username="dora").invite_code == "lab-7"


def test_open_mode_asks_for_no_code(client: Client) -> None:
    assert b"invite_code" not in client.get("/accounts/signup/").content


def test_closed_mode_refuses_sign_up_and_hides_the_link(client: Client, settings: Any) -> None:
    settings.JUDGE_SIGNUP = "closed"
    page = client.get("/accounts/signup/")
    assert page.status_code == 403
    assert "ask your instructor or an administrator for an account" in page.content.decode()
    assert sign_up(client, "dora").status_code == 403
    assert not User.objects.filter(username="dora").exists()
    assert b'href="/accounts/signup/"' not in client.get("/accounts/login/").content


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"JUDGE_SIGNUP": "invite"}, "JUDGE_SIGNUP=invite needs JUDGE_SIGNUP_INVITE_CODES"),
        ({"JUDGE_SIGNUP": "maybe"}, "JUDGE_SIGNUP='maybe' is not one of: open, invite, closed"),
    ],
)
def test_settings_refuse_a_bad_sign_up_mode(env: dict[str, str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import judge_site.settings"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "true", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and message in proc.stderr


# --- usernames that cannot pass for another's --------------------------------------------------


@pytest.mark.parametrize(
    "name", ["аlice", "ALICE", "Alice", "a1ice", "aIice", "alice.", "_alice", "aiice"]
)
def test_it_refuses_a_name_confusable_with_an_existing_one(
    client: Client, mailed_alice: AbstractUser, name: str
) -> None:
    response = sign_up(client, name)
    assert response.status_code == 200
    page = response.content.decode()
    assert "English letters" in page or "similar" in page or "already exists" in page
    assert User.objects.filter(username=name).count() == (1 if name == "alice" else 0)


@pytest.mark.parametrize("name", ["bоb", "b ob", "b@b", "x", "---", "a" * 31])
def test_it_refuses_names_outside_the_plain_alphabet(client: Client, name: str) -> None:
    assert sign_up(client, name).status_code == 200
    assert not User.objects.filter(username=name).exists()


def test_similar_but_distinct_names_are_accepted(
    client: Client, mailed_alice: AbstractUser
) -> None:
    for name in ["alicia", "alice_w", "Dora-K.2"]:
        assert sign_up(client, name).status_code == 302, name


def test_full_width_letters_are_stored_as_plain_ones(client: Client) -> None:
    assert sign_up(client, "ｂob").status_code == 302  # Django's NFKC normalisation
    assert User.objects.filter(username="bob").exists()


def test_the_skeleton_maps_look_alikes_together() -> None:
    from judge_site.accounts.usernames import skeleton

    assert skeleton("rnary") == skeleton("mary")
    assert skeleton("B0B") == skeleton("bob")
    assert skeleton("vvill") == skeleton("will")
    assert skeleton("ｂob") == skeleton("bob")  # NFKC: full-width letters
    assert skeleton("bob") != skeleton("rob")


# --- API tokens and password changes ------------------------------------------------------------


def make_token(user: AbstractUser) -> str:
    return ApiToken.objects.create(user=user, key=ApiToken.generate_key()).key


def api_status(client: Client, key: str) -> int:
    return client.get("/api/v1/problems", HTTP_AUTHORIZATION=f"Token {key}").status_code


def test_a_password_change_revokes_the_api_token(
    client: Client, mailed_alice: AbstractUser
) -> None:
    old = make_token(mailed_alice)
    assert api_status(client, old) == 200
    client.force_login(mailed_alice)
    new_password = "another-long-passphrase-77"
    client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": new_password, "new_password2": new_password},
    )
    # Revoked (stored hashed, a new token is shown only when she makes one on the token page).
    assert not ApiToken.objects.filter(user=mailed_alice).exists()
    assert api_status(Client(), old) == 401


def test_any_password_change_revokes_the_token(mailed_alice: AbstractUser) -> None:
    old = make_token(mailed_alice)
    mailed_alice.set_password("set-elsewhere-password-5")  # the admin, changepassword, ensure_admin
    mailed_alice.save()
    assert not ApiToken.objects.filter(user=mailed_alice).exists()
    assert api_status(Client(), old) == 401


def test_other_changes_keep_the_token(client: Client, mailed_alice: AbstractUser) -> None:
    old = make_token(mailed_alice)
    mailed_alice.email = "new@example.org"
    mailed_alice.save()
    log_in(client, "alice", PASSWORD, ELSEWHERE)  # updates last_login
    assert api_status(Client(), old) == 200


def test_the_token_page_is_never_cached(client: Client, mailed_alice: AbstractUser) -> None:
    client.force_login(mailed_alice)
    response = client.get("/accounts/token/")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


# --- judgings in flight: per user and per address across accounts ------------------------------


@pytest.fixture
def published_problem() -> Any:
    from judge_site.catalog.models import Problem

    return Problem.objects.create(
        number=48,
        slug="p48",
        title="P",
        difficulty="easy",
        statement_md="",
        published=True,
        starter_code="",
        package_dir="/nonexistent",
        version="v1",
    )


@pytest.fixture
def no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge_site.submissions import services

    monkeypatch.setattr(services, "_enqueue", lambda *args, **kwargs: None)


def submit(client: Client, key: str, address: str) -> Any:
    return client.post(
        "/api/v1/submissions",
        data=json.dumps({"problem": 48, "code": "def f():\n    return 1\n", "mode": "run"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {key}",
        REMOTE_ADDR=address,
    )


def test_judgings_in_flight_are_capped_per_user(
    client: Client, mailed_alice: AbstractUser, published_problem: Any, no_enqueue: None,
    settings: Any,
) -> None:
    from judge_site.submissions.models import Status, Submission

    settings.JUDGE_MAX_QUEUED_PER_USER = 2
    key = make_token(mailed_alice)
    assert submit(client, key, ELSEWHERE).status_code == 201
    assert submit(client, key, ATTACKER).status_code == 201
    refused = submit(client, key, "192.0.2.1")
    assert refused.status_code == 429
    assert "already have 2 judgings waiting or running" in refused.json()["error"]
    Submission.objects.filter(user=mailed_alice).update(status=Status.DONE)  # they finished
    assert submit(client, key, ELSEWHERE).status_code == 201


def test_judgings_in_flight_are_capped_per_address_across_accounts(
    client: Client,
    mailed_alice: AbstractUser,
    mailed_bob: AbstractUser,
    superuser: AbstractUser,
    published_problem: Any,
    no_enqueue: None,
    settings: Any,
) -> None:
    settings.JUDGE_MAX_QUEUED_PER_ADDRESS = 2
    alice_key, bob_key = make_token(mailed_alice), make_token(mailed_bob)
    root_key = make_token(superuser)
    assert submit(client, alice_key, ATTACKER).status_code == 201
    assert submit(client, bob_key, ATTACKER).status_code == 201
    refused = submit(client, root_key, ATTACKER)
    assert refused.status_code == 429
    assert "sent from your network address" in refused.json()["error"]
    assert submit(client, root_key, ELSEWHERE).status_code == 201

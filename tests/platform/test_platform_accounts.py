"""Sign up, log in, log out, password change, the admin, and ensure_admin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-41"
User = get_user_model()


@pytest.fixture
def alice() -> AbstractUser:
    return User.objects.create_user("alice", "alice@example.org", PASSWORD)


@pytest.fixture
def staff() -> AbstractUser:
    return User.objects.create_superuser("root", "root@example.org", PASSWORD)


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


def test_it_rejects_a_taken_username(client: Client, alice: AbstractUser) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "alice", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert User.objects.filter(username="alice").count() == 1


def test_it_logs_in_and_out(client: Client, alice: AbstractUser) -> None:
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert logged_in_username(client) == "alice"
    assert client.get("/accounts/logout/").status_code == 405  # logout is POST only
    assert logged_in_username(client) == "alice"
    assert client.post("/accounts/logout/").status_code == 302
    assert logged_in_username(client) is None


def test_it_refuses_a_wrong_password(client: Client, alice: AbstractUser) -> None:
    response = client.post("/accounts/login/", {"username": "alice", "password": "nope-nope-1"})
    assert response.status_code == 200
    assert logged_in_username(client) is None


def test_it_changes_the_password(client: Client, alice: AbstractUser) -> None:
    client.force_login(alice)
    new = "another-long-passphrase-77"
    response = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert client.get(response["Location"]).status_code == 200
    alice.refresh_from_db()
    assert alice.check_password(new)
    assert logged_in_username(client) == "alice"  # the session survives the change


def test_password_change_needs_a_login(client: Client) -> None:
    response = client.get("/accounts/password/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_staff_reach_the_admin_and_students_do_not(
    client: Client, alice: AbstractUser, staff: AbstractUser
) -> None:
    client.force_login(alice)
    assert client.get("/admin/").status_code == 302
    client.post("/accounts/logout/")
    response = client.post("/admin/login/?next=/admin/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 302
    page = client.get("/admin/")
    assert page.status_code == 200 and b"Site administration" in page.content


def test_the_menu_shows_the_user_and_the_admin_link(client: Client, staff: AbstractUser) -> None:
    client.force_login(staff)
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

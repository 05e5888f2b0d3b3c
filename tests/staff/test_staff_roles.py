"""Roles by permission: every /staff/ route asks for a capability (judge_site/core/roles.py).

The routes are walked from the URLconf, so a route added later without a permission fails here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver
from judge_cast import grant, make_user

from judge_site.core.roles import (
    AUTHOR,
    CAPABILITIES,
    PUBLISH,
    READ_SUBMISSIONS,
    REJUDGE,
    TEACHING_ASSISTANT,
    UPLOAD,
)
from judge_site.staff.models import ProblemVersion, Rejudge
from judge_site.submissions.models import Status, Submission


def _walk(patterns: list[Any], prefix: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += _walk(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            found.append((route, entry.callback))
    return found


STAFF_ROUTES = [(r, v) for r, v in _walk(get_resolver().url_patterns) if r.startswith("staff/")]


def test_the_walk_finds_the_staff_routes() -> None:
    routes = {r for r, _ in STAFF_ROUTES}
    assert {"staff/", "staff/upload/", "staff/submissions/<int:pk>/"} <= routes
    assert len(routes) >= 12


@pytest.fixture
def objects(problem: Any, alice: Any, staff_tasks: Any) -> dict[str, int]:
    sub = Submission.objects.create(user=alice, problem=problem, code="x = 1", status=Status.DONE,
                                    verdict="WA", problem_version=problem.version)
    version = ProblemVersion.objects.create(problem_number=problem.number, ordinal=1,
                                            slug=problem.slug, title=problem.title,
                                            content_hash="h" * 64, package_dir="/nonexistent")
    rejudge = Rejudge.objects.create(scope="submission 1")
    return {"versions": version.pk, "rejudges": rejudge.pk, "submissions": sub.pk,
            "problems": problem.number}


def _url(route: str, objects: dict[str, int]) -> str:
    section = route.split("/")[1] if route.count("/") > 1 else ""
    return "/" + re.sub(r"<int:\w+>", str(objects.get(section, 1)), route)


def _user(name: str, *perms: str) -> Any:
    user = make_user(name, staff=True)
    grant(user, *perms)
    return user


@pytest.mark.django_db
def test_a_staff_account_without_permissions_gets_403_on_every_route(
        client: Any, objects: dict[str, int]) -> None:
    client.force_login(_user("dora"))
    for route, _ in STAFF_ROUTES:
        url = _url(route, objects)
        for response in (client.get(url), client.post(url)):
            assert response.status_code == 403, (url, response.request["REQUEST_METHOD"])
            assert "needs the permission" in response.content.decode()
    assert Rejudge.objects.count() == 1 and ProblemVersion.objects.count() == 1


@pytest.mark.django_db
def test_each_permission_a_route_names_lets_its_holder_in(client: Any,
                                                          objects: dict[str, int]) -> None:
    holders = {perm: _user(f"holder{i}", perm) for i, perm in enumerate(CAPABILITIES)}
    for route, view in STAFF_ROUTES:
        needed = getattr(view, "required_permissions", None)
        assert needed and set(needed) <= set(CAPABILITIES), f"{route} asks for no capability"
        url = _url(route, objects)
        for perm in needed:
            client.force_login(holders[perm])
            for response in (client.get(url), client.post(url)):
                assert response.status_code not in (401, 403), (url, perm, response.status_code)
                assert "login" not in response.get("Location", ""), (url, perm)


@pytest.mark.django_db
def test_students_are_sent_to_the_log_in_not_told_what_exists(client: Any, alice: Any,
                                                              objects: dict[str, int]) -> None:
    client.force_login(alice)
    for route, _ in STAFF_ROUTES:
        response = client.get(_url(route, objects))
        assert response.status_code == 302 and "login" in response["Location"], route


@pytest.mark.django_db
def test_ensure_admin_sets_up_the_role_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_ADMIN_USER", raising=False)
    call_command("ensure_admin")
    author = {f"{p.content_type.app_label}.{p.codename}"
              for p in Group.objects.get(name=AUTHOR).permissions.all()}
    assistant = {f"{p.content_type.app_label}.{p.codename}"
                 for p in Group.objects.get(name=TEACHING_ASSISTANT).permissions.all()}
    assert {UPLOAD, PUBLISH, REJUDGE} <= author and READ_SUBMISSIONS not in author
    assert {REJUDGE, READ_SUBMISSIONS} <= assistant and not {UPLOAD, PUBLISH} & assistant
    Group.objects.get(name=AUTHOR).permissions.clear()
    call_command("ensure_admin")  # idempotent, and puts a changed group back
    assert Group.objects.get(name=AUTHOR).permissions.count() == len(author)


@pytest.mark.django_db
def test_an_author_ships_problems_and_a_teaching_assistant_reads_code(
        client: Any, objects: dict[str, int]) -> None:
    call_command("ensure_admin")
    ada, tom = make_user("ada", staff=True), make_user("tom", staff=True)
    ada.groups.add(Group.objects.get(name=AUTHOR))
    tom.groups.add(Group.objects.get(name=TEACHING_ASSISTANT))
    code_page = f"/staff/submissions/{objects['submissions']}/"
    client.force_login(ada)
    assert client.get("/staff/upload/").status_code == 200
    assert client.get(code_page).status_code == 403
    assert client.get(f"/submissions/{objects['submissions']}/").status_code == 404
    client.force_login(tom)
    assert client.get("/staff/upload/").status_code == 403
    page = client.get(code_page)
    assert page.status_code == 200 and "x = 1" in page.content.decode()


@pytest.mark.django_db
def test_the_admin_actions_ask_for_the_capability(client: Any, problem: Any,
                                                  objects: dict[str, int]) -> None:
    viewer = _user("vic", "catalog.view_problem", "submissions.view_submission")
    client.force_login(viewer)
    response = client.post("/admin/catalog/problem/", {
        "action": "unpublish", "_selected_action": [problem.pk]})
    problem.refresh_from_db()
    assert problem.published and response.status_code in (200, 302)
    page = client.get("/admin/catalog/problem/").content.decode()
    assert 'value="unpublish"' not in page and 'value="rejudge_all"' not in page
    grant(viewer, PUBLISH)
    client.post("/admin/catalog/problem/", {"action": "unpublish",
                                            "_selected_action": [problem.pk]})
    problem.refresh_from_db()
    assert not problem.published


@pytest.mark.django_db
def test_a_non_numeric_admin_change_url_is_a_400(client: Any, charlie: Any) -> None:
    charlie.is_superuser = True
    charlie.save()
    client.force_login(charlie)
    for bad in ("abc", "%C2%B2", "9" * 30):
        response = client.get(f"/admin/submissions/submission/{bad}/change/")
        assert response.status_code == 400 and b"is not a number" in response.content

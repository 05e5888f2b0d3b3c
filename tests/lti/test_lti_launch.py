"""LTI 1.3 launches against the platform of lti_platform.py (real RSA signatures, its key set
and endpoints over real HTTP on 127.0.0.1): the tool's key set, sign-in by launch, the landing
pages, and a refusal page (never a 500) for a wrong signature, nonce, audience or deployment."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from jwcrypto.jwk import JWK
from lti_tool.models import LtiContext, LtiUser

from judge_site.courses.models import Membership, Role
from judge_site.lti.models import AssignmentLink
from tests.courses.course_cast import make_assignment
from tests.lti.lti_platform import INSTRUCTOR
from tests.lti.lti_steps import launch, login

pytestmark = pytest.mark.django_db


def test_jwks_serves_the_tools_public_key_and_keeps_it(client: Any) -> None:
    first = client.get("/lti/jwks/")
    assert first.status_code == 200 and first["Content-Type"] == "application/json"
    (key,) = first.json()["keys"]
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig" and key["kid"]
    assert "d" not in key  # never the private part
    assert client.get("/lti/jwks/").json() == first.json()  # generated once, then stored


def test_a_students_first_launch_makes_an_account_and_lands_on_the_assignment(
    client: Any, platform: Any, linked_course: Any, problem: Any
) -> None:
    week = make_assignment(linked_course, [problem])
    alice = get_user_model().objects.create(username="sam", email="sam@example.org")
    response = launch(client, platform, sub="lms-sam", custom={"assignment_id": str(week.pk)})
    assert response.status_code == 302 and response["Location"] == f"/problems/{problem.number}/"
    lti_user = LtiUser.objects.get(sub="lms-sam")
    user = lti_user.auth_user
    assert user is not None and user != alice  # the same e-mail never matches an account
    assert not user.has_usable_password() and user.username.startswith("sam-student-")
    membership = Membership.objects.get(course=linked_course, user=user)
    assert membership.role == Role.STUDENT
    link = AssignmentLink.objects.get(assignment=week)
    assert link.lineitem_url == platform.lineitem(1) and link.can_publish_scores
    page = client.get(response["Location"])
    assert page.status_code == 200 and page.context["user"] == user  # signed in
    # A second launch (a new browser) signs the same account in: no second account.
    client.logout()
    assert launch(client, platform, sub="lms-sam").status_code == 302
    assert LtiUser.objects.get(sub="lms-sam").auth_user == user
    assert get_user_model().objects.filter(username__startswith="sam-student-").count() == 1


def test_an_instructors_launch_lands_on_the_progress_page(
    client: Any, platform: Any, linked_course: Any
) -> None:
    response = launch(client, platform, sub="lms-ines", roles=INSTRUCTOR, name="Ines Teacher")
    assert response.status_code == 302
    assert response["Location"] == f"/courses/{linked_course.pk}/progress"
    user = LtiUser.objects.get(sub="lms-ines").auth_user
    assert Membership.objects.get(course=linked_course, user=user).role == Role.INSTRUCTOR
    assert client.get(response["Location"]).status_code == 200


def test_an_unlinked_lms_course_gets_a_page_saying_who_links_it(
    client: Any, platform: Any, registration: Any
) -> None:
    response = launch(client, platform, roles=INSTRUCTOR)
    assert response.status_code == 403
    text = response.content.decode()
    assert "not linked yet" in text and "admin" in text and "course-ctx-1" in text
    # The LMS course is now known, for staff to pick in the admin's LTI course links.
    assert LtiContext.objects.filter(id_on_platform="course-ctx-1").exists()


def refusal(response: Any) -> str:
    assert response.status_code in (400, 403), response.status_code
    assert 'id="lti-next-step"' in response.content.decode()
    return response.content.decode()


def test_a_token_signed_by_another_key_is_refused(
    client: Any, platform: Any, linked_course: Any
) -> None:
    forger = JWK.generate(kty="RSA", size=2048, kid=platform.key.get("kid"))  # same kid, other key
    text = refusal(launch(client, platform, key=forger))
    assert "signature is not valid" in text
    assert not LtiUser.objects.exists() and "_auth_user_id" not in client.session


def test_a_wrong_or_replayed_nonce_is_refused(
    client: Any, platform: Any, linked_course: Any
) -> None:
    assert "cannot be used" in refusal(launch(client, platform, nonce="made-up-nonce"))
    # The same id_token posted twice: the second is a replay.
    auth = login(client)
    token = platform.id_token(auth["nonce"])
    first = client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})
    assert first.status_code == 302
    client.logout()
    again = client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})
    assert "cannot be used" in refusal(again)


def test_a_token_for_another_audience_is_refused(
    client: Any, platform: Any, linked_course: Any
) -> None:
    text = refusal(launch(client, platform, aud="some-other-tool"))
    assert "not registered here" in text and "client id" in text


def test_an_unknown_deployment_is_refused_until_staff_activate_it(
    client: Any, platform: Any, linked_course: Any
) -> None:
    text = refusal(launch(client, platform, deployment_id="deployment-9"))
    assert "deployment-9" in text and "is active" in text
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("params", [
    {}, {"iss": "https://nobody.example", "login_hint": "x", "target_link_uri": "y"},
])
def test_a_bad_login_initiation_gets_a_page(client: Any, registration: Any, params: Any) -> None:
    refusal(client.get("/lti/login/", params))


@pytest.mark.parametrize("form", [
    {}, {"id_token": "not-a-jwt", "state": "x"}, {"id_token": "a.b.c", "state": "state-1"},
])
def test_garbage_posted_to_the_launch_gets_a_page(client: Any, registration: Any, form: Any) -> None:
    refusal(client.post("/lti/launch/", form))


def test_the_lti_pages_may_be_framed_by_the_registered_platform_only(
    client: Any, platform: Any, registration: Any
) -> None:
    page = client.get("/lti/login/")
    policy = page["Content-Security-Policy"]
    assert f"frame-ancestors 'self' {platform.url} https://lms.example.edu" in policy
    assert "X-Frame-Options" not in page
    assert "frame-ancestors 'none'" in client.get("/accounts/login/")["Content-Security-Policy"]


def test_a_link_naming_another_courses_assignment_gets_a_page(
    client: Any, platform: Any, linked_course: Any, problem: Any
) -> None:
    from tests.courses.course_cast import instructor, make_course

    elsewhere = make_assignment(make_course(instructor("olga"), "Other course"), [problem])
    response = launch(client, platform, custom={"assignment_id": str(elsewhere.pk)})
    assert response.status_code == 404 and "deep linking" in refusal_text(response)
    assert "_auth_user_id" not in client.session


def refusal_text(response: Any) -> str:
    assert 'id="lti-next-step"' in response.content.decode()
    return response.content.decode()


def test_staff_see_links_and_grade_pushes_in_the_admin(
    client: Any, platform: Any, linked_course: Any
) -> None:
    from judge_site.lti.models import CourseLink

    staff = get_user_model().objects.create_superuser("root", "root@example.org", "x")
    client.force_login(staff)
    link = CourseLink.objects.get()
    for path in ("/admin/lti/courselink/", f"/admin/lti/courselink/{link.pk}/change/",
                 "/admin/lti/gradepush/", "/admin/lti/assignmentlink/",
                 "/admin/lti_tool/ltiregistration/", "/admin/lti/courselink/add/"):
        assert client.get(path).status_code == 200, path

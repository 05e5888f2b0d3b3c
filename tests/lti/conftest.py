from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.courses.course_cast import instructor, make_course
from tests.lti.lti_platform import CLIENT_ID, CONTEXT_ID, DEPLOYMENT_ID, ISSUER, Platform


@pytest.fixture
def platform(db: Any) -> Iterator[Platform]:
    with Platform() as running:
        yield running


@pytest.fixture
def registration(platform: Platform) -> Any:
    """The platform as staff register it in the admin: an active deployment, and its course
    context linked to our course (``linked_course``)."""
    from lti_tool.models import LtiDeployment, LtiRegistration

    reg = LtiRegistration.objects.create(
        name="Example LMS", issuer=ISSUER, client_id=CLIENT_ID,
        auth_url=f"{platform.url}/auth", token_url=f"{platform.url}/token",
        keyset_url=f"{platform.url}/jwks",
    )
    LtiDeployment.objects.create(registration=reg, deployment_id=DEPLOYMENT_ID, is_active=True)
    return reg


@pytest.fixture
def linked_course(registration: Any) -> Any:
    from lti_tool.models import LtiContext

    from judge_site.lti.models import CourseLink

    course = make_course(instructor(), "LLM internals")
    context = LtiContext.objects.create(
        deployment=registration.deployments.get(), id_on_platform=CONTEXT_ID, title="LLM (LMS)"
    )
    CourseLink.objects.create(context=context, course=course)
    return course

"""Deep linking: an instructor, launched from the LMS's "add content", picks assignments of the
linked course; the answer is a deep linking response signed with the tool's key (pylti1p3),
posted back to the platform. Each picked assignment becomes an LTI resource link carrying the
custom parameter ``assignment_id`` and a line item (one point per problem), so that its
launches open the assignment and its grades land in that gradebook column."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from lti_tool.models import LtiLaunch
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from judge_site.courses.models import Assignment
from judge_site.lti import framing, services
from judge_site.lti.services import LaunchRefused

MESSAGE_TYPE = "https://purl.imsglobal.org/spec/lti/claim/message_type"
SETTINGS_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


def _instructor_course(lti_launch: LtiLaunch) -> Any:
    if not services.teaches(lti_launch):
        raise LaunchRefused(
            "Only instructors place content",
            "Deep linking (adding this tool's content to the LMS course) is for the course's "
            "instructors.", "Open the tool from a link your instructor placed in the course.")
    return services.course_for(lti_launch).course


def picker(request: HttpRequest, lti_launch: LtiLaunch) -> HttpResponse:
    course = _instructor_course(lti_launch)
    settings_claim = lti_launch.get_claim(SETTINGS_CLAIM) or {}
    assignments = list(Assignment.objects.filter(course=course).prefetch_related("problems"))
    response = render(request, "lti/deep_link_picker.html", {
        "course": course,
        "assignments": assignments,
        "launch_id": lti_launch.get_launch_id(),
        "multiple": bool(settings_claim.get("accept_multiple", True)),
    })
    return framing.allow_platforms(response)


def answer(request: HttpRequest, lti_launch: LtiLaunch, form: Any) -> HttpResponse:
    if not lti_launch.is_deep_link_launch:
        raise LaunchRefused("Not a deep linking launch", "This picker belongs to another kind "
                            "of launch.", "Choose \u201cadd content\u201d from the LMS again.", 400)
    course = _instructor_course(lti_launch)
    wanted = [services._int(v) for v in form.getlist("assignment")][:50]
    picked = list(Assignment.objects.filter(course=course, pk__in=wanted).prefetch_related(
        "problems"))
    if not picked:
        raise LaunchRefused(
            "Nothing was picked", f"Pick at least one assignment of \u201c{course.title}\u201d.",
            "Go back, tick an assignment and press Add to the course.", 400)
    target = request.build_absolute_uri(reverse("lti:launch"))
    resources = []
    for assignment in picked:
        problems = max(1, len(assignment.problems.all()))
        line_item = (
            LineItem().set_score_maximum(problems).set_label(assignment.title[:200])
            .set_resource_id(f"assignment-{assignment.pk}")
        )
        resources.append(
            DeepLinkResource().set_url(target).set_title(assignment.title[:200])
            .set_custom_params({services.ASSIGNMENT_CLAIM: str(assignment.pk)})
            .set_lineitem(line_item)
        )
    message_launch = lti_launch.get_message_launch()
    deep_link = message_launch.get_deep_link()
    settings_claim = lti_launch.get_claim(SETTINGS_CLAIM) or {}
    return_url = str(settings_claim.get("deep_link_return_url", ""))
    response = render(request, "lti/deep_link_return.html", {
        "return_url": return_url,
        "jwt": deep_link.get_response_jwt(resources),
        "picked": picked,
    })
    return framing.allow_platforms(response, form_target=return_url)

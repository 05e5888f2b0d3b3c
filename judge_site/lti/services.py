"""What a launch does, once django-lti has validated its id_token: the platform user's account
(created on the first launch), the linked course and the member's role in it, the assignment a
link opens and where its grades go. Views (judge_site/lti/views.py) stay thin."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils.text import slugify
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiLaunch, LtiResourceLink, LtiUser

from judge_site.courses.models import Assignment, Course, Membership, Role
from judge_site.lti.grades import SCORE_SCOPE
from judge_site.lti.models import AssignmentLink, CourseLink

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
TEACHING_ROLES = {f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}#Administrator"}
ASSIGNMENT_CLAIM = "assignment_id"  # the custom parameter deep linking sets on a link


@dataclass
class LaunchRefused(Exception):  # not frozen: raising sets attributes on an exception
    """A launch the site cannot serve: the page says ``title``, ``message`` and what to do."""

    title: str
    message: str
    next_step: str
    status: int = 403


def teaches(lti_launch: LtiLaunch) -> bool:
    """Instructor or administrator of the LMS course (a teaching assistant counts: the
    Instructor role's sub-roles), per the launch's roles claim."""
    for role in lti_launch.roles_claim or []:
        full = normalize_role(str(role))
        if full in TEACHING_ROLES or full.startswith(f"{MEMBERSHIP}/Instructor#"):
            return True
    return False


def account_for(lti_launch: LtiLaunch) -> Any:
    """The account of the launch's platform user (issuer + ``sub``), made on the first launch
    with a fresh unique username and no password. Never matched by e-mail: an address a
    platform sends proves nothing about an account made here."""
    lti_user: LtiUser = lti_launch.user
    if lti_user.auth_user_id is not None and lti_user.auth_user is not None:
        return lti_user.auth_user
    users = get_user_model().objects
    base = _username_base(lti_user)
    for _ in range(20):
        name = f"{base}-{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = users.create(
                    username=name, first_name=(lti_user.given_name or "")[:150],
                    last_name=(lti_user.family_name or "")[:150], email=lti_user.email or "",
                )
                user.set_unusable_password()
                user.save(update_fields=["password"])
        except IntegrityError:
            continue  # that name is taken: draw another suffix
        # Two first launches at once: the first to link wins, the other account is dropped.
        if LtiUser.objects.filter(pk=lti_user.pk, auth_user__isnull=True).update(auth_user=user):
            return user
        user.delete()
        return LtiUser.objects.select_related("auth_user").get(pk=lti_user.pk).auth_user
    raise LaunchRefused(
        "No account could be made", "Every username tried for you was taken.",
        "Launch the tool again from your course page.", status=503,
    )


def _username_base(lti_user: LtiUser) -> str:
    name = lti_user.name or " ".join(p for p in (lti_user.given_name, lti_user.family_name) if p)
    base = slugify(name)[:20].strip("-")
    return base or "lti-" + re.sub(r"[^a-z0-9]", "", lti_user.sub.lower())[:12] or "lti-user"


def course_for(lti_launch: LtiLaunch) -> CourseLink:
    link = CourseLink.objects.select_related("course").filter(context=lti_launch.context).first()
    if link is not None:
        return link
    context = lti_launch.context
    label = context.title or context.label or context.id_on_platform
    if teaches(lti_launch):
        raise LaunchRefused(
            "This LMS course is not linked yet",
            f"The course \u201c{label}\u201d (context id {context.id_on_platform}) of "
            f"{lti_launch.registration.name} is not linked to a course here.",
            "Ask the site's staff to link it in the admin (LTI course links: pick this context "
            "and your course), then launch again.",
        )
    raise LaunchRefused(
        "This course is not set up yet",
        f"\u201c{label}\u201d is not linked to a course on this judge yet.",
        "Tell your instructor; launch again once they have set it up.",
    )


def membership_sync(course: Course, user: Any, instructor: bool) -> Membership:
    """The member's role follows the launch's (the course's creator is never demoted). A
    student's first launch is their joining: the course sees what they submit from then on."""
    role = Role.INSTRUCTOR if instructor else Role.STUDENT
    membership, created = Membership.objects.get_or_create(
        course=course, user=user, defaults={"role": role}
    )
    if not created and membership.role != role and user.pk != course.created_by_id:
        Membership.objects.filter(pk=membership.pk).update(role=role)
        membership.role = role
    return membership


def assignment_for(lti_launch: LtiLaunch, course: Course) -> Assignment | None:
    """The assignment the launch's link opens: the link's custom ``assignment_id`` (set by
    deep linking) or the link's earlier mapping. Records the line item its grades go to."""
    if not lti_launch.resource_link_claim:
        return None
    resource_link: LtiResourceLink = lti_launch.resource_link
    wanted = lti_launch.get_custom_claim(ASSIGNMENT_CLAIM)
    existing = AssignmentLink.objects.filter(resource_link=resource_link).first()
    assignment: Assignment | None = None
    if wanted not in (None, ""):
        assignment = Assignment.objects.filter(course=course, pk=_int(wanted)).first()
        if assignment is None:
            raise LaunchRefused(
                "This link opens no assignment of the course",
                f"The link asks for assignment {wanted!s}, which the course "
                f"\u201c{course.title}\u201d does not have (deleted, or linked to another course).",
                "Instructors: place the link again with deep linking (Add content / External "
                "tool), picking an assignment of this course.",
                status=404,
            )
    elif existing is not None:
        assignment = existing.assignment
    if assignment is None:
        return None
    ags = lti_launch.ags_claim or {}
    fields = {
        "assignment": assignment,
        "lineitem_url": str(ags.get("lineitem") or (existing.lineitem_url if existing else "")),
        "can_publish_scores": SCORE_SCOPE in (ags.get("scope") or []),
    }
    AssignmentLink.objects.update_or_create(resource_link=resource_link, defaults=fields)
    return assignment


def _int(value: Any) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        return -1


def landing_url(course: Course, assignment: Assignment | None, instructor: bool) -> str:
    """Instructors land on the course's progress page; students on the assignment: its problem
    page when it has one problem (the Submit is there), else the course page listing it."""
    if instructor:
        return reverse("courses:progress", args=[course.pk])
    if assignment is not None:
        problems = list(assignment.problems.all()[:2])
        if len(problems) == 1:
            return reverse("problem_detail", args=[problems[0].number])
    return reverse("courses:detail", args=[course.pk])

"""The LMS course's roster (LTI Names and Role Provisioning Services) into the linked course.

Read after an instructor's launch that offers the service (a Celery task: the request never
waits on the platform). django-lti keeps the platform's view (LtiUser, LtiMembership); here the
roles of members who have an account here (they launched at least once) follow the platform:
an instructor there is an instructor of the course, a learner a student, and a learner the
platform marks inactive (dropped) leaves the course. Nobody gets an account or a membership by
the roster alone: a student is a member from their first launch (docs/lti.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import cast

import requests
from django.db import transaction
from django.utils import timezone
from lti_tool.models import LtiMembership
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from judge_site.courses.models import Membership, Role
from judge_site.lti.grades import TimeoutSession
from judge_site.lti.models import CourseLink


class RosterError(Exception):
    """The platform could not be read now (unreachable, a 5xx): worth a retry."""


@dataclass(frozen=True)
class RosterResult:
    members: int = 0  # on the platform's roster
    roles_changed: int = 0
    removed: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def role_of(membership: LtiMembership) -> str:
    if membership.is_instructor or membership.is_administrator:
        return Role.INSTRUCTOR
    return Role.STUDENT


def roster_sync(course_link_id: int) -> RosterResult:
    link = CourseLink.objects.select_related("context__deployment__registration", "course").get(
        pk=course_link_id
    )
    context = link.context
    if not context.memberships_url:
        return RosterResult()
    service = NamesRolesProvisioningService(
        ServiceConnector(context.deployment.registration.to_registration(),
                         requests_session=TimeoutSession()),
        {"context_memberships_url": context.memberships_url},
    )
    try:
        members = cast(list[dict], service.get_members())
    except requests.RequestException as exc:
        raise RosterError(str(exc)) from exc
    except LtiException as exc:
        raise RosterError(str(exc)) from exc
    with transaction.atomic():
        context.update_memberships(members)
        changed = removed = 0
        creator = link.course.created_by_id
        for lti_membership in LtiMembership.objects.filter(
            context=context, user__auth_user__isnull=False
        ).select_related("user"):
            user_id = lti_membership.user.auth_user_id
            ours = Membership.objects.filter(course=link.course, user_id=user_id).first()
            if ours is None or user_id == creator:
                continue
            if not lti_membership.is_active and ours.role == Role.STUDENT:
                ours.delete()
                removed += 1
                continue
            role = role_of(lti_membership)
            if lti_membership.is_active and ours.role != role:
                Membership.objects.filter(pk=ours.pk).update(role=role)
                changed += 1
        CourseLink.objects.filter(pk=link.pk).update(roster_synced_at=timezone.now())
    return RosterResult(members=len(members), roles_changed=changed, removed=removed)

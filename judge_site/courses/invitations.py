"""Writes on invitations: a roster import invites (it never enrols), the invited student accepts
or declines, and a student chooses whether the course's instructors see their e-mail address.

The rule they keep (docs/courses.md, "What an instructor sees"): a course sees only what a student
gave it. The import never looks an account up, so its report is the same whether or not an
address has one; membership starts when the student accepts (``Membership.joined_at``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models, transaction
from django.utils import timezone

from judge_site.core import inputs
from judge_site.courses import selectors
from judge_site.courses.models import Course, Invitation, InvitationStatus, Membership, Role
from judge_site.courses.services import (
    MAX_ROSTER_BYTES,
    MAX_ROSTER_ROWS,
    CourseError,
    course_target,
)
from judge_site.staff.services.audit import audit_record


class RosterStatus(models.TextChoices):
    """A roster row's outcome. ``invited`` and ``already_invited`` say nothing of accounts: the
    same for an address that has one and for one that has none."""

    INVITED = "invited"
    ALREADY_INVITED = "already_invited"
    INVALID = "invalid"


@dataclass(frozen=True)
class RosterRow:
    line: int
    value: str  # as written in the CSV
    status: str  # a RosterStatus
    error: str = ""  # why, for an invalid row


@dataclass
class RosterReport:
    rows: list[RosterRow] = field(default_factory=list)

    @property
    def invalid(self) -> list[RosterRow]:
        """Rows that are neither a username nor an e-mail address: nothing is imported while
        there is one."""
        return [r for r in self.rows if r.status == RosterStatus.INVALID]

    @property
    def invited(self) -> list[RosterRow]:
        return [r for r in self.rows if r.status == RosterStatus.INVITED]

    @property
    def already(self) -> list[RosterRow]:
        return [r for r in self.rows if r.status == RosterStatus.ALREADY_INVITED]

    @property
    def ok(self) -> bool:
        return not self.invalid


_HEADER_WORDS = {"username", "user", "email", "e-mail", "login", "name"}
_USERNAME = UnicodeUsernameValidator()


def _address_problem(value: str) -> str:
    """Why ``value`` is neither an e-mail address (it has an @) nor a username; "" when it is
    one. Decided from the text alone: no account is looked up."""
    if len(value) > 254:  # the invitation's column; also more than any mailbox allows
        return "at most 254 characters"
    try:
        if "@" in value:
            validate_email(value)
        elif len(value) > 150:
            return "a username has at most 150 characters"
        else:
            _USERNAME(value)
    except ValidationError:
        return "not an e-mail address" if "@" in value else "not a username or an e-mail address"
    return ""


def roster_import(actor: AbstractBaseUser, course: Course, text: str) -> RosterReport:
    """Invite the students listed in a roster CSV: the first cell of each row is a username or
    an e-mail address (a header row naming the column is skipped).

    A roster invites, it does not enrol: each address gets a pending ``Invitation`` that the
    account holding it accepts (or not) on its courses page or through the API; until then the
    course reads nothing of that account. No account is looked up, so every well-formed row is
    reported ``invited`` (``already_invited`` when this course invited it before) whether or
    not an account has that address. All or nothing: when a row is neither a username nor an
    e-mail address, nobody is invited and the report lists those rows."""
    if len(text.encode("utf-8", "replace")) > MAX_ROSTER_BYTES:
        raise CourseError(f"roster: at most {MAX_ROSTER_BYTES // 1024} KiB")
    if inputs.text_problem(text):
        raise CourseError(f"roster: {inputs.text_problem(text)}")
    values: list[tuple[int, str]] = []
    try:
        for line_no, row in enumerate(csv.reader(io.StringIO(text.lstrip("\ufeff"))), start=1):
            cell = next((c.strip() for c in row if c.strip()), "")
            if not cell or (line_no == 1 and cell.lower() in _HEADER_WORDS):
                continue
            values.append((line_no, cell))
    except csv.Error as exc:
        raise CourseError(f"roster: not a CSV file ({exc})") from None
    if not values:
        raise CourseError("roster: no usernames or e-mail addresses found")
    if len(values) > MAX_ROSTER_ROWS:
        raise CourseError(f"roster: at most {MAX_ROSTER_ROWS} rows")
    bad = [
        RosterRow(n, v[:100], RosterStatus.INVALID, why)
        for n, v in values
        if (why := _address_problem(v))
    ]
    if bad:
        return RosterReport(bad)
    report = RosterReport()
    with transaction.atomic():
        known = set(
            Invitation.objects.filter(
                course=course, address__in={v.lower() for _, v in values}
            ).values_list("address", flat=True)
        )
        fresh: list[Invitation] = []
        for line_no, value in values:
            address = value.lower()
            if address in known:
                report.rows.append(RosterRow(line_no, value, RosterStatus.ALREADY_INVITED))
                continue
            known.add(address)
            fresh.append(Invitation(course=course, address=address, invited_by=actor))
            report.rows.append(RosterRow(line_no, value, RosterStatus.INVITED))
        # A concurrent import of the same address keeps its row (one invitation per address).
        Invitation.objects.bulk_create(fresh, ignore_conflicts=True)
        audit_record(
            actor, "course.roster_import", course_target(course),
            invited=[i.address for i in fresh], already=len(report.already),
        )
    return report


def _pending_invitation(user: AbstractBaseUser, invitation_id: int) -> Invitation:
    """The pending invitation to ``user``, locked; 404 for any other (another's included)."""
    found = (
        selectors.invitations_pending_for(user).select_for_update(of=("self",)).filter(pk=invitation_id).first()
        if 0 < invitation_id < 2**63
        else None
    )
    if found is None:
        raise CourseError("no such invitation (or it was answered already)", 404)
    return found


@transaction.atomic
def invitation_accept(
    user: AbstractBaseUser, invitation_id: int, *, share_email: Any = False
) -> tuple[Membership, bool]:
    """Accept an invitation addressed to ``user``: (membership, created). The student joins the
    course now (its instructors read their submissions from this moment on); an invitation made
    to an e-mail address gives the course that address (``Membership.roster_email``).
    ``share_email`` (a bool) also shares the account's own address. A member already keeps
    their membership and role."""
    if not isinstance(share_email, bool):
        raise CourseError("share_email: true or false")
    invitation = _pending_invitation(user, invitation_id)
    membership, created = Membership.objects.get_or_create(
        course=invitation.course, user=user,
        defaults={
            "role": Role.STUDENT,
            "share_email": share_email,
            "roster_email": invitation.address if invitation.by_email else "",
        },
    )
    answered = Invitation.objects.filter(
        pk=invitation.pk, status=InvitationStatus.PENDING
    ).update(status=InvitationStatus.ACCEPTED, answered_by=user, answered_at=timezone.now())
    if not answered:  # answered meanwhile (the row lock makes this rare): nothing changes
        raise CourseError("no such invitation (or it was answered already)", 404)
    audit_record(
        user, "course.invitation_accept", course_target(invitation.course),
        invitation=invitation.pk, joined=created,
    )
    return membership, created


@transaction.atomic
def invitation_decline(user: AbstractBaseUser, invitation_id: int) -> Invitation:
    """Decline an invitation addressed to ``user``: the course learns nothing (its instructors
    see it as "not accepted", as if no account had the address)."""
    invitation = _pending_invitation(user, invitation_id)
    Invitation.objects.filter(pk=invitation.pk, status=InvitationStatus.PENDING).update(
        status=InvitationStatus.DECLINED, answered_by=user, answered_at=timezone.now()
    )
    invitation.status = InvitationStatus.DECLINED
    return invitation


def email_sharing_set(user: AbstractBaseUser, course_id: int, share: Any) -> Membership:
    """A student agrees (or no longer agrees) to show their account's e-mail address to the
    course's instructors."""
    if not isinstance(share, bool):
        raise CourseError("share_email: true or false")
    updated = Membership.objects.filter(
        course_id=course_id, user_id=user.pk, role=Role.STUDENT
    ).update(share_email=share)
    if not updated:
        raise CourseError("no such course", 404)
    return Membership.objects.select_related("course").get(course_id=course_id, user_id=user.pk)

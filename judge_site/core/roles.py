"""Staff roles: one Django permission per capability, the groups that bundle them, and the
guard every /staff/ page wears. Kept in core, below every app, because the catalog's and the
submissions' admin and selectors ask the same capabilities (the permissions are the staff app's).

``is_staff`` only lets an account into the staff area and the admin; what it may do there is
given by these permissions (a staff account with none gets 403 everywhere, as in the admin):

| permission               | lets the holder                                                 |
|--------------------------|-----------------------------------------------------------------|
| staff.upload_package     | upload package / practice versions, have them checked, make a   |
|                          | checked version a problem's current one (its code then judges)  |
| staff.publish_problem    | publish and unpublish problems                                  |
| staff.rejudge            | start rejudges (one submission, a problem's) and follow them    |
| staff.read_submissions   | read every student's code, hidden-test details, seeds           |
| staff.view_metrics       | read ``/metrics`` (session or API token) and the dashboard; no  |
|                          | group holds it: a monitoring account's, or JUDGE_METRICS_TOKEN  |

What each is equivalent to: upload_package runs the author's code (tests.py, test.py,
solution.py) on the judge, confined to a sandbox of its own without the Docker socket, database
or broker credentials, or network (so no permission equals root on the host); read_submissions
is every student's work; publish_problem and rejudge change what students see and their
verdicts, and are audited (AuditEntry).

Groups (``manage.py ensure_admin`` creates them; add people in the admin, Users -> Groups):
"author" writes and ships problems, "teaching assistant" helps students and rejudges. An
instructor who does both belongs to both. Superusers hold every permission.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.models import AnonymousUser, Group, Permission
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden

UPLOAD = "staff.upload_package"
PUBLISH = "staff.publish_problem"
REJUDGE = "staff.rejudge"
READ_SUBMISSIONS = "staff.read_submissions"
VIEW_METRICS = "staff.view_metrics"
CAPABILITIES = (UPLOAD, PUBLISH, REJUDGE, READ_SUBMISSIONS, VIEW_METRICS)

AUTHOR = "author"
TEACHING_ASSISTANT = "teaching assistant"
# The admin's read-only lists each role needs beside its capabilities (the admin's actions on
# them ask for the capability too: staff/problem_admin.py, staff/submission_admin.py).
GROUPS: dict[str, tuple[str, ...]] = {
    AUTHOR: (UPLOAD, PUBLISH, REJUDGE, "catalog.view_problem", "staff.view_problemversion",
             "staff.view_rejudge"),
    TEACHING_ASSISTANT: (REJUDGE, READ_SUBMISSIONS, "catalog.view_problem",
                         "submissions.view_submission", "staff.view_rejudge"),
}

View = Callable[..., HttpResponse]


def can(user: Any, *perms: str) -> bool:
    """``user`` holds at least one of ``perms`` (an active superuser holds all)."""
    if user is None or isinstance(user, AnonymousUser) or not user.is_active:
        return False
    return any(user.has_perm(perm) for perm in perms)


def capability_required(*perms: str) -> Callable[[View], View]:
    """A staff page: anyone not staff goes to the admin's log-in (as with the admin), a staff
    account holding none of ``perms`` gets 403 naming what is missing. The permissions are
    kept on the view (``required_permissions``) so a test can walk every route."""

    def decorate(view: View) -> View:
        @wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not can(request.user, *perms):
                needed = " or ".join(perms)
                return HttpResponseForbidden(
                    f"403 forbidden: this staff page needs the permission {needed}; ask an "
                    "administrator to add your account to the group that holds it "
                    f"({', '.join(groups_with(*perms)) or 'a superuser'}).\n",
                    content_type="text/plain; charset=utf-8",
                )
            return view(request, *args, **kwargs)

        wrapped: Any = staff_member_required(guarded)
        wrapped.required_permissions = perms
        return wrapped  # type: ignore[no-any-return]

    return decorate


def groups_with(*perms: str) -> list[str]:
    return [name for name, held in GROUPS.items() if any(p in held for p in perms)]


def _permission(dotted: str) -> Permission:
    app_label, codename = dotted.split(".", 1)
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


def ensure_groups() -> dict[str, bool]:
    """Create the role groups and set each one's permissions to exactly GROUPS' (idempotent).
    Returns {group name: whether anything changed}."""
    changed: dict[str, bool] = {}
    for name, dotted in GROUPS.items():
        group, created = Group.objects.get_or_create(name=name)
        wanted = {_permission(d).pk for d in dotted}
        held = set(group.permissions.values_list("pk", flat=True))
        if held != wanted:
            group.permissions.set(wanted)
        changed[name] = created or held != wanted
    return changed

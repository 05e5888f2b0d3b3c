"""Gates on a problem that a later app decides (a course's exam window), asked by the apps
below it without importing it: the catalog's problem page, ``submission_create``, the hints
and the judging's package. Apps import one way (core <- catalog <- submissions <- courses):
the courses app registers its functions here in its AppConfig.ready().

A gate answers None when it has nothing to say (the common case: no exam covers the problem),
else a ``Gate``. A reader answers whether a user who is not staff may read an unpublished
problem now (an exam's instructor; its student inside their own window): everyone else gets the
catalog's usual 404 for it. A pin answers the package (folder, content hash) a submission must be judged
against, or None for the problem's current version. A submission reader answers whether a user
may read another user's submission (an instructor of a course of its author's). A version
folder finder answers the folders on this host that may hold a package's content hash (the
staff app's uploaded versions), for the package server a worker host fetches from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.utils import timezone


@dataclass(frozen=True)
class Gate:
    """What a window says of one user and one problem now. ``open``: the user may see the
    problem and Run or Submit; else ``message`` says why and when (for the page and the API's
    403). ``hints``: hints may be shown. ``ends_at``: when the user's window ends (the timer);
    ``title`` and ``url``: the window's name and page."""

    open: bool
    message: str = ""
    hints: bool = True
    ends_at: datetime | None = None
    title: str = ""
    url: str = ""


ProblemGate = Callable[[Any, Any, datetime], "Gate | None"]
PackagePin = Callable[[Any], "tuple[str, str] | None"]
UnpublishedReader = Callable[[Any, Any, datetime], bool]
SubmissionReader = Callable[[Any, Any], bool]
VersionFolders = Callable[[str], "list[str]"]

T = TypeVar("T")


class Hooks(list[T]):
    """The functions registered for one question, in the order registered (each once)."""

    def register(self, hook: T) -> None:
        if hook not in self:
            self.append(hook)


_gates: Hooks[ProblemGate] = Hooks()
_pins: Hooks[PackagePin] = Hooks()
_readers: Hooks[UnpublishedReader] = Hooks()
_submission_readers: Hooks[SubmissionReader] = Hooks()
_version_folders: Hooks[VersionFolders] = Hooks()
register_problem_gate = _gates.register
register_package_pin = _pins.register
register_unpublished_reader = _readers.register
register_submission_reader = _submission_readers.register
register_version_folders = _version_folders.register


def version_folders(version: str) -> list[str]:
    """The folders the registered finders name for content hash ``version`` (unchecked)."""
    return [folder for finder in _version_folders for folder in finder(version)]


def reads_submission(user: Any, submission: Any) -> bool:
    """Whether a reader lets ``user`` read another user's ``submission`` (an instructor of a
    course of its author's, judge_site/courses/selectors.py)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return any(reader(user, submission) for reader in _submission_readers)


def reads_unpublished(user: Any, problem: Any, now: datetime | None = None) -> bool:
    """Whether a reader lets ``user`` (signed in, not staff) read the unpublished ``problem``."""
    if not getattr(user, "is_authenticated", False):
        return False
    when = now or timezone.now()
    return any(reader(user, problem, when) for reader in _readers)


def problem_gate(user: Any, problem: Any, now: datetime | None = None) -> Gate | None:
    """The first gate that has something to say of ``user`` and ``problem``, or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    when = now or timezone.now()
    for gate in _gates:
        found = gate(user, problem, when)
        if found is not None:
            return found
    return None


def package_pin(submission: Any) -> tuple[str, str] | None:
    """(package folder, content hash) that ``submission`` must be judged against, or None."""
    for pin in _pins:
        found = pin(submission)
        if found is not None:
            return found
    return None

"""Where a host command runs an author's code (issue 41, least privilege).

``manage.py judge``, ``check_problems`` and ``import_practice`` run on a maintainer's host, as
the maintainer's user, next to the Docker socket. A package that is not the trusted catalog
(the repository's own problems/) has its authors' code (tests.py, the reference, a practice
folder's test.py) run in a confined grader container of the worker image, as a worker does,
wherever the Docker engine has that image. The trusted catalog opts out with
JUDGE_TRUST_CATALOG=true (the default; false confines it too). Where no image or no Docker
engine is found, the author's code would run unconfined: with the docker backend refused when
DEBUG is off, else a warning line on the command's stderr, each saying how to fix it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from judge_site.worker import confinement

# The label of a host command's graders: "HOST-PID" of the command's process.
COMMAND_LABEL = "tensor-judge.command"

log = logging.getLogger(__name__)


class UnconfinedRefused(ImproperlyConfigured):
    """A host command would run an untrusted package's author code unconfined (DEBUG off)."""


def trusted(path: Path) -> bool:
    """Whether a package folder is in the trusted catalog and JUDGE_TRUST_CATALOG is on."""
    if not getattr(settings, "JUDGE_TRUST_CATALOG", True):
        return False
    catalog = (Path(settings.BASE_DIR) / "problems").resolve()
    resolved = Path(path).resolve()
    return resolved == catalog or catalog in resolved.parents


def worker_image_present() -> str | None:
    """The first of HOST_WORKER_IMAGES the local Docker engine has; None without one or
    without a reachable engine."""
    try:
        import docker

        client = docker.from_env()
        try:
            for image in confinement.HOST_WORKER_IMAGES:
                try:
                    client.images.get(image)
                    return image
                except docker.errors.ImageNotFound:
                    continue
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - no engine, no permission, no SDK: unconfined
        log.info("no Docker engine for a confined grader (%s)", type(exc).__name__)
    return None


def decide(
    paths: list[Path], backend_name: str,
    find_image: Callable[[], str | None] | None = None,
) -> str:
    """Prepare a host command's judging of these package folders: '' when their authors' code
    runs confined (or all are trusted), else the warning line to show (DEBUG); raises
    UnconfinedRefused when DEBUG is off. Sets the grader image the confined grader uses."""
    untrusted = [p for p in paths if not trusted(p)]
    if not untrusted:
        return ""
    if backend_name == "docker" and confinement.confined("docker"):
        if confinement.grader_image() is not None:
            return ""
        image = (find_image or worker_image_present)()
        if image is not None:
            confinement._host_image = image
            log.info("authors' code of %s runs in a confined grader of %s", untrusted[0], image)
            return ""
        why = (f"no worker image ({' or '.join(confinement.HOST_WORKER_IMAGES)}) in a reachable "
               "Docker engine")
        fix = ("build it with scripts/build_images (or set JUDGE_GRADER_IMAGE to an image with "
               "this repository's grader)")
    elif backend_name == "docker":
        why = "JUDGE_CONFINE_AUTHORS=never"
        fix = "set JUDGE_CONFINE_AUTHORS=auto"
    else:
        why = f"the {backend_name} backend confines nothing"
        fix = "use JUDGE_BACKEND=docker with the worker image built (scripts/build_images)"
    names = ", ".join(str(p) for p in untrusted[:3]) + (" ..." if len(untrusted) > 3 else "")
    line = (f"the author's code of {names} runs unconfined as your user ({why}): {fix}; "
            "the repository's own problems/ are trusted with JUDGE_TRUST_CATALOG=true")
    # The local backend confines no student's code either: choosing it (DEBUG, or
    # JUDGE_ALLOW_LOCAL_BACKEND / --backend local, knowingly) is the consent; a warning suffices.
    if not settings.DEBUG and backend_name == "docker":
        raise UnconfinedRefused(f"refused: {line}")
    return f"warning: {line}"


def prepare_command(command: BaseCommand, paths: list[Path], backend_name: str) -> None:
    """``decide`` for a management command: the warning on its stderr, a refusal as its error.
    The command's graders carry its host and process id (``COMMAND_LABEL``), as a worker's carry
    its name: whose they are, for an operator and for the suite."""
    try:
        line = decide(paths, backend_name)
    except UnconfinedRefused as exc:
        raise CommandError(str(exc)) from None
    if line:
        command.stderr.write(line)
    confinement.label_graders({COMMAND_LABEL: f"{socket.gethostname()}-{os.getpid()}"})

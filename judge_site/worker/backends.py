"""The sandbox backends a judging engine builds from the JUDGE_* settings (judge_site/worker/engine.py).

The local backend runs untrusted code without any isolation and is refused when DEBUG is off
unless JUDGE_ALLOW_LOCAL_BACKEND is set (a backend named on a maintainer's command line is
consent). Sandbox images (docker): a problem whose problem.toml says ``requires = ["triton"]``
is judged in the image JUDGE_SANDBOX_IMAGES maps its requirements to
("triton=tensor-judge-sandbox:triton"); every other problem in JUDGE_SANDBOX_IMAGE. A
requirement without a mapping, or requirements mapped to different images, is a configuration
error (images.SandboxImageError): the judging ends IE with that message. GPU judgings use the
docker backend's GPU image, which must carry every GPU problem's requirements.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from judge_site.worker.images import image_for
from sandbox.host.backends.base import Backend, Sandbox, SandboxSpec, get_backend

log = logging.getLogger(__name__)


class ImageRoutingBackend(Backend):
    """The docker backend of JUDGE_SANDBOX_IMAGE, which also hands out, through
    ``for_requirements``, docker backends of the image a package's ``requires`` need (the package
    check, sandbox/grader/check.py, asks it for each package)."""

    name = "docker"

    def __init__(self, options: dict[str, object]) -> None:
        self._options = options
        self._by_image: dict[str, Backend] = {}
        self.default = self._backend(str(settings.JUDGE_SANDBOX_IMAGE))

    def _backend(self, image: str) -> Backend:
        if image not in self._by_image:
            self._by_image[image] = get_backend("docker", **{**self._options, "image": image})
        return self._by_image[image]

    def for_requirements(self, requires: Sequence[str]) -> Backend:
        return self._backend(image_for(requires))

    def start(self, spec: SandboxSpec) -> Sandbox:
        return self.default.start(spec)

    def start_trusted(self, spec: SandboxSpec) -> Sandbox:
        return self.default.start_trusted(spec)

    def reap(self, older_than_s: float) -> int:
        return self.default.reap(older_than_s)


def local_backend(explicit: bool) -> Backend:
    """The local backend, refused when DEBUG is off unless JUDGE_ALLOW_LOCAL_BACKEND or
    ``explicit`` (a maintainer named it on a command line)."""
    if not explicit and not settings.DEBUG and not getattr(settings, "JUDGE_ALLOW_LOCAL_BACKEND", False):
        raise ImproperlyConfigured(
            "JUDGE_BACKEND=local is not a security boundary and is refused when DEBUG is off; "
            "use docker, or set JUDGE_ALLOW_LOCAL_BACKEND=true knowingly"
        )
    return get_backend("local")


def remove_own_pooled() -> int:
    """At a worker's shutdown (its main process, after the last judging): remove every pooled
    sandbox this host started, in case a worker process died before closing its pool."""
    if settings.JUDGE_BACKEND != "docker" or settings.JUDGE_SANDBOX_POOL_SIZE <= 0:
        return 0
    try:
        import docker

        from sandbox.host.backends.docker_pool import remove_pooled

        return remove_pooled(docker.from_env())
    except Exception as exc:  # the engine may be gone already; the orphan sweep remains
        log.warning("removing pooled sandboxes failed: %s: %s", type(exc).__name__, exc)
        return 0

"""The sandbox images of this site, parsed in one place: JUDGE_SANDBOX_IMAGE for a problem without
``requires``, else the one image JUDGE_SANDBOX_IMAGES ("requirement=image" entries, e.g.
"triton=tensor-judge-sandbox:triton") maps all its requirements to. The engine (a judging's
image) and the routing (whether a GPU problem can be judged on CPU here) both read it here."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class SandboxImageError(ImproperlyConfigured):
    """No (single) sandbox image is configured for a problem's requirements."""


def requirement_images() -> dict[str, str]:
    """settings.JUDGE_SANDBOX_IMAGES ("requirement=image" entries) as a dict."""
    images: dict[str, str] = {}
    for entry in getattr(settings, "JUDGE_SANDBOX_IMAGES", []):
        requirement, sep, image = (part.strip() for part in entry.partition("="))
        if not (sep and requirement and image):
            raise SandboxImageError(
                f"JUDGE_SANDBOX_IMAGES entry {entry!r} is not requirement=image "
                "(e.g. triton=tensor-judge-sandbox:triton)"
            )
        images[requirement] = image
    return images


def image_for(requires: Sequence[str]) -> str:
    """The sandbox image for a problem's ``requires``: JUDGE_SANDBOX_IMAGE when there are none,
    else the one image JUDGE_SANDBOX_IMAGES maps all of them to."""
    if not requires:
        return str(settings.JUDGE_SANDBOX_IMAGE)
    images = requirement_images()
    unmapped = [r for r in requires if r not in images]
    if unmapped:
        raise SandboxImageError(
            f"no sandbox image for requirement(s) {', '.join(unmapped)}: add "
            f"'{unmapped[0]}=IMAGE' to JUDGE_SANDBOX_IMAGES (now {','.join(f'{k}={v}' for k, v in images.items()) or 'empty'})"
        )
    chosen = sorted({images[r] for r in requires})
    if len(chosen) > 1:
        raise SandboxImageError(
            f"requirements {', '.join(requires)} map to different images ({', '.join(chosen)}) "
            "in JUDGE_SANDBOX_IMAGES: one image must carry them all"
        )
    return chosen[0]

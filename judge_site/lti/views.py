"""The LTI endpoints (exact paths, docs/lti.md): ``GET /lti/jwks/`` (the tool's public keys),
``/lti/login/`` (OIDC login initiation), ``POST /lti/launch/`` (the platform's id_token), and
``POST /lti/deep-link/`` (the instructor's pick, answered with a signed deep linking response).

CSRF: login, launch and the deep-link pick are exempt. The first two are requests a platform's
page makes (cross-site POSTs, authenticated by the signed id_token with its single-use nonce
and the state cookie); the pick is authenticated by its launch id (random, cached for the
launch's lifetime, and it must be a deep linking launch of an instructor). Session cookie:
SameSite stays Lax site-wide. A launch signs the user in on a top-level navigation (the platform
opens the tool in a new window or tab, as docs/lti.md asks); only pylti1p3's own state and
session cookies are SameSite=None (over HTTPS), so the picker works inside the platform's
frame. These pages may be framed by the registered platforms only (CSP frame-ancestors)."""

from __future__ import annotations

import logging

from django.contrib.auth import login as auth_login
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiLaunch
from lti_tool.utils import DjangoToolConfig, get_launch_from_request, sync_data_from_launch
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from judge_site.core.queueing import enqueue
from judge_site.lti import deep_linking, framing, services
from judge_site.lti.services import LaunchRefused

logger = logging.getLogger(__name__)

NONCE_USED_TTL_S = 24 * 3600  # longer than any id_token a platform issues lives
MALFORMED = (KeyError, TypeError, ValueError, AttributeError)


def refused(request: HttpRequest, why: LaunchRefused) -> HttpResponse:
    response = render(request, "lti/refused.html", {"why": why}, status=why.status)
    return framing.allow_platforms(response)


def explain(exc: Exception) -> LaunchRefused:
    """A validation failure of pylti1p3 as a page: what was wrong, what to do next."""
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    if "nonce" in lowered or "state" in lowered:
        return LaunchRefused(
            "This launch cannot be used", f"The launch was refused: {text}. A launch is valid "
            "once, for a few minutes, in the browser that started it.",
            "Go back to your course page in the LMS and open the link again.", 400)
    if "decode" in lowered or "signature" in lowered or "public key" in lowered or "kid" in lowered:
        return LaunchRefused(
            "The platform's signature is not valid", f"The launch's id_token was refused: {text}.",
            "Staff: check the registration's key set URL (the platform's JWKS) in the admin; "
            "students: open the link again from the LMS, and tell your instructor if it fails.",
            400)
    if "client id" in lowered or "registration" in lowered or "issuer" in lowered:
        return LaunchRefused(
            "This platform is not registered here", f"The launch was refused: {text}.",
            "Staff: register the platform (its issuer and the client id it gave this tool) in "
            "the admin under LTI registrations; docs/lti.md shows how.", 403)
    return LaunchRefused(
        "The launch was refused", f"The platform's launch message is not valid: {text}.",
        "Open the link again from your course page; if it fails again, tell your instructor.",
        400)


def tool_keys() -> None:
    """The tool's key pair, generated on first use and kept in the database (never in the
    repository); ``manage.py rotate_keys`` (django-lti) adds a new one."""
    if not Key.objects.active().exists():
        Key.objects.generate()


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    tool_keys()
    response = JsonResponse(Key.objects.as_jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response


def launch_url(request: HttpRequest) -> str:
    return request.build_absolute_uri(reverse("lti:launch"))


@csrf_exempt
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    """OIDC login initiation: redirect to the platform's authorization URL with a fresh state
    (cookie) and nonce (cache). The redirect URI is always our launch URL, whatever
    ``target_link_uri`` says (the platform checks it against its registered redirect URIs)."""
    params = request.POST if request.method == "POST" else request.GET
    if not params.get("iss") or not params.get("login_hint"):
        return refused(request, LaunchRefused(
            "Not an LTI login", "This address starts an LTI 1.3 launch from a learning "
            "platform; the request lacks its iss and login_hint parameters.",
            "Open the tool from your course page in the LMS.", 400))
    tool_keys()
    oidc = DjangoOIDCLogin(request, DjangoToolConfig(), launch_data_storage=DjangoCacheDataStorage())
    try:
        response = oidc.disable_check_cookies().redirect(launch_url(request))
    except (OIDCException, LtiException) as exc:
        return refused(request, LaunchRefused(
            "This platform is not registered here",
            f"The login from issuer {params.get('iss')!s} (client id "
            f"{params.get('client_id') or 'not given'}) was refused: {exc}.",
            "Staff: register the platform in the admin under LTI registrations (issuer and "
            "client id exactly as the platform shows them); docs/lti.md shows how.", 403))
    return framing.allow_platforms(response)


@csrf_exempt
@xframe_options_exempt
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    """The platform's id_token, validated by django-lti/pylti1p3 (signature against the
    platform's key set, issuer, audience = client id, deployment, nonce, state)."""
    tool_keys()
    try:
        lti_launch = get_launch_from_request(request)
    except LtiException as exc:
        return refused(request, explain(exc))
    except MALFORMED as exc:
        return refused(request, explain(exc))
    deployment = lti_launch.deployment
    if not deployment.is_active:
        return refused(request, LaunchRefused(
            "This deployment is not active",
            f"The platform launched deployment {deployment.deployment_id!s} of "
            f"{lti_launch.registration.name}, which is not activated here.",
            "Staff: open the registration in the admin and tick \u201cis active\u201d on that "
            "deployment (a deployment id the platform has not shown you should stay off).", 403))
    nonce = str(lti_launch.get_claim("nonce"))
    if not cache.add(f"lti-nonce-used:{lti_launch.registration.pk}:{nonce}", 1, NONCE_USED_TTL_S):
        return refused(request, explain(LtiException("Invalid Nonce: this launch was used")))
    try:
        # Kept even when the launch is then refused: staff link the LMS course (the context
        # recorded here) after an instructor's first launch said it was not linked.
        with transaction.atomic():
            sync_data_from_launch(lti_launch)
        with transaction.atomic():
            if lti_launch.is_deep_link_launch:
                return deep_linking.picker(request, lti_launch)
            if lti_launch.is_resource_launch:
                return _resource_launch(request, lti_launch)
    except LaunchRefused as why:
        return refused(request, why)
    except MALFORMED as exc:
        logger.warning("LTI: a launch with malformed claims: %r", exc)
        return refused(request, explain(exc))
    return refused(request, LaunchRefused(
        "This kind of launch is not supported",
        f"The platform sent a {lti_launch.get_claim(deep_linking.MESSAGE_TYPE)!s} message; "
        "this tool answers resource links and deep linking.",
        "Open the tool from a link in your course.", 400))


def _resource_launch(request: HttpRequest, lti_launch: LtiLaunch) -> HttpResponse:
    instructor = services.teaches(lti_launch)
    user = services.account_for(lti_launch)
    if not user.is_active:
        raise LaunchRefused(
            "This account is deactivated", f"The account {user.username} is deactivated here.",
            "Ask the site's staff why; they can reactivate it in the admin.")
    link = services.course_for(lti_launch)
    services.membership_sync(link.course, user, instructor)
    assignment = services.assignment_for(lti_launch, link.course)
    auth_login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    if instructor and lti_launch.context.memberships_url:
        transaction.on_commit(lambda: _enqueue_roster(link.pk))
    return redirect(services.landing_url(link.course, assignment, instructor))


def _enqueue_roster(course_link_id: int) -> None:
    from django.conf import settings

    try:
        enqueue("lti.sync_roster", (course_link_id,), queue=settings.LTI_GRADE_QUEUE)
    except Exception as exc:  # the roster is read again at the next instructor launch
        logger.warning("LTI: roster sync not queued (%s)", exc)


@csrf_exempt
@xframe_options_exempt
@require_POST
def deep_link(request: HttpRequest) -> HttpResponse:
    """The instructor's pick from the picker page: answered with the signed response form."""
    launch_id = str(request.POST.get("launch_id", ""))[:200]
    try:
        message_launch = DjangoMessageLaunch.from_cache(
            launch_id, request, DjangoToolConfig(), launch_data_storage=DjangoCacheDataStorage()
        )
    except LtiException:
        return refused(request, LaunchRefused(
            "This picker has expired", "The deep linking launch is no longer known (it lives "
            "for an hour, in the browser that opened it).",
            "Close this window and choose \u201cadd content\u201d from the LMS again.", 400))
    try:
        return deep_linking.answer(request, LtiLaunch(message_launch), request.POST)
    except LaunchRefused as why:
        return refused(request, why)

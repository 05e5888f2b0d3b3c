"""The steps of a launch as the browser takes them, with Django's test client: the platform
starts the OIDC login at /lti/login/, the tool redirects to the platform's authorization URL
with a state (cookie) and nonce, and the platform posts its signed id_token to /lti/launch/."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.lti.lti_platform import CLIENT_ID, ISSUER, Platform


def login(client: Any) -> dict[str, str]:
    """/lti/login/ -> the platform's authorization URL: its query (state, nonce, ...)."""
    response = client.get("/lti/login/", {
        "iss": ISSUER, "login_hint": "hint-1", "client_id": CLIENT_ID,
        "target_link_uri": "http://testserver/lti/launch/", "lti_message_hint": "m-1",
    })
    assert response.status_code == 302, response.content[:500]
    location = urlsplit(response["Location"])
    return {k: v[0] for k, v in parse_qs(location.query).items()}


def launch(client: Any, platform: Platform, **claims: Any) -> Any:
    """A whole launch; ``claims`` go to Platform.id_token (``nonce`` overrides the real one)."""
    auth = login(client)
    assert auth["redirect_uri"] == "http://testserver/lti/launch/"
    nonce = claims.pop("nonce", auth["nonce"])
    token = platform.id_token(nonce, **claims)
    return client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})

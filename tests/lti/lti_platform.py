"""A learning platform simulated for the LTI tests: its own RSA key pair signing real
id_tokens, and a real HTTP server on 127.0.0.1 (http.server in a thread) serving its key set,
its OAuth2 token endpoint (which checks the tool's signed client assertion against the tool's
key set), AGS score endpoints (recording each score; the newest timestamp wins, as the AGS spec
asks of platforms), an NRPS roster, and an authorization endpoint answering with the
auto-posting form a real LMS sends to the tool's launch URL (the browser journey).

Imported as ``from lti_platform import ...`` (tests/lti is on the path of its conftest)."""

from __future__ import annotations

import html
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
from jwcrypto.jwk import JWK

ISSUER = "https://lms.example.edu"
CLIENT_ID = "tensor-judge-client"
DEPLOYMENT_ID = "deployment-1"
CONTEXT_ID = "course-ctx-1"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
LEARNER = [MEMBERSHIP + "Learner"]
INSTRUCTOR = [MEMBERSHIP + "Instructor"]

_KEY: JWK | None = None  # one key pair per test session: RSA generation costs ~0.1-0.5 s


def platform_key() -> JWK:
    global _KEY
    if _KEY is None:
        _KEY = JWK.generate(kty="RSA", size=2048, kid="platform-key-1")
    return _KEY


class Platform:
    """The platform. ``tool_jwks`` (set by the test) verifies the tool's client assertions."""

    def __init__(self) -> None:
        self.key = platform_key()
        self.scores: dict[str, list[dict[str, Any]]] = {}  # line item path -> scores received
        self.tokens_issued = 0
        self.tool_jwks: dict[str, Any] | None = None
        self.roster: list[dict[str, Any]] = []
        self.fail_scores = 0  # answer the next N score posts with 503
        self.launch_form: dict[str, Any] = {}  # what /auth posts (browser journey)
        self.id_token_claims: dict[str, Any] = {}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Platform:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def launch_form_claims(self) -> dict[str, Any]:
        """The id_token claims /auth signs for the browser's launch (``tool`` is the tool's URL)."""
        return {k: v for k, v in self.launch_form.items() if k != "tool"}

    def lineitem(self, n: int = 1) -> str:
        return f"{self.url}/lineitems/{n}"

    def latest_score(self, n: int = 1) -> dict[str, Any] | None:
        """The score the gradebook shows: the newest timestamp among those received."""
        got = self.scores.get(f"/lineitems/{n}/scores", [])
        return max(got, key=lambda s: s["timestamp"]) if got else None

    # --- the messages the platform signs -------------------------------------------------
    def id_token(self, nonce: str, *, sub: str = "user-1", roles: list[str] | None = None,
                 message_type: str = "LtiResourceLinkRequest", key: JWK | None = None,
                 aud: str = CLIENT_ID, deployment_id: str = DEPLOYMENT_ID,
                 resource_link: str = "link-1", custom: dict[str, str] | None = None,
                 lineitem: int | None = 1, nrps: bool = False, name: str = "Sam Student",
                 email: str = "sam@example.org", **extra: Any) -> str:
        claims: dict[str, Any] = {
            "iss": ISSUER, "aud": aud, "sub": sub, "nonce": nonce,
            "iat": int(time.time()), "exp": int(time.time()) + 300,
            "name": name, "given_name": name.split()[0], "family_name": name.split()[-1],
            "email": email,
            LTI + "message_type": message_type, LTI + "version": "1.3.0",
            LTI + "deployment_id": deployment_id,
            LTI + "roles": roles if roles is not None else LEARNER,
            LTI + "context": {"id": CONTEXT_ID, "title": "LLM internals (LMS)",
                              "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"]},
            LTI + "target_link_uri": "http://testserver/lti/launch/",
            LTI + "launch_presentation": {"document_target": "window"},
        }
        if message_type == "LtiResourceLinkRequest":
            claims[LTI + "resource_link"] = {"id": resource_link, "title": "Week 1"}
            if lineitem is not None:
                claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = {
                    "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/score",
                              "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"],
                    "lineitems": f"{self.url}/lineitems",
                    "lineitem": self.lineitem(lineitem),
                }
        else:
            claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": f"{self.url}/deep-link-return",
                "accept_types": ["ltiResourceLink"], "accept_presentation_document_targets":
                ["iframe", "window"], "accept_multiple": True, "data": "opaque-1",
            }
        if custom:
            claims[LTI + "custom"] = custom
        if nrps:
            claims["https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"] = {
                "context_memberships_url": f"{self.url}/memberships",
                "service_versions": ["2.0"],
            }
        claims.update(extra)
        self.id_token_claims = claims
        signer = key or self.key
        return jwt.encode(claims, signer.export_to_pem(private_key=True, password=None),
                          algorithm="RS256", headers={"kid": signer.get("kid")})

    def jwks(self) -> dict[str, Any]:
        public = json.loads(self.key.export_public())
        return {"keys": [{**public, "alg": "RS256", "use": "sig"}]}

    def check_assertion(self, assertion: str) -> bool:
        """The tool's client assertion, checked against the tool's key set (RFC 7523)."""
        if self.tool_jwks is None:
            return False
        kid = jwt.get_unverified_header(assertion).get("kid")
        for key in self.tool_jwks["keys"]:
            if key.get("kid") == kid:
                pem = JWK.from_json(json.dumps(key)).export_to_pem()
                try:
                    body = jwt.decode(assertion, pem, algorithms=["RS256"],
                                      audience=f"{self.url}/token")
                except jwt.PyJWTError:
                    return False
                return bool(body.get("iss") == CLIENT_ID)
        return False


def _handler(platform: Platform) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def _send(self, status: int, body: Any, kind: str = "application/json") -> None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self) -> None:
            path = urlsplit(self.path)
            if path.path == "/jwks":
                return self._send(200, platform.jwks())
            if path.path == "/memberships":
                if not self.headers.get("Authorization", "").startswith("Bearer platform-"):
                    return self._send(401, {"error": "no token"})
                return self._send(200, {"id": f"{platform.url}/memberships",
                                        "context": {"id": CONTEXT_ID},
                                        "members": platform.roster})
            if path.path == "/auth":  # OIDC authorization: the auto-posting launch form
                query = {k: v[0] for k, v in parse_qs(path.query).items()}
                token = platform.id_token(query["nonce"], **platform.launch_form_claims())
                fields = {"id_token": token, "state": query["state"]}
                inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
                                 for k, v in fields.items())
                page = (f'<html><body><form id="f" method="post" action="'
                        f'{html.escape(query["redirect_uri"])}">{inputs}</form>'
                        '<script>document.getElementById("f").submit()</script></body></html>')
                return self._send(200, page, "text/html")
            if path.path == "/course":  # the LMS course page with the tool's link
                tool = platform.launch_form["tool"]
                link = (f"{tool}/lti/login/?iss={ISSUER}&login_hint=u&client_id={CLIENT_ID}"
                        f"&target_link_uri={tool}/lti/launch/&lti_deployment_id={DEPLOYMENT_ID}")
                return self._send(200, f'<html><body><a id="tool-link" href="{html.escape(link)}">'
                                  'Week 1 (Tensor Judge)</a></body></html>', "text/html")
            return self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            body = self._body()
            if path == "/token":
                form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
                if not platform.check_assertion(form.get("client_assertion", "")):
                    return self._send(401, {"error": "invalid_client"})
                platform.tokens_issued += 1
                return self._send(200, {"access_token": f"platform-{uuid.uuid4().hex}",
                                        "token_type": "Bearer", "expires_in": 3600})
            if path.startswith("/lineitems/") and path.endswith("/scores"):
                if not self.headers.get("Authorization", "").startswith("Bearer platform-"):
                    return self._send(401, {"error": "no token"})
                if platform.fail_scores > 0:
                    platform.fail_scores -= 1
                    return self._send(503, {"error": "down for maintenance"})
                platform.scores.setdefault(path, []).append(json.loads(body))
                return self._send(200, {})
            return self._send(404, {"error": "not found"})

    return Handler


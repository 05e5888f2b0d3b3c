"""No input answers 5xx: random and adversarial requests at every URL of the site.

Every URL pattern of the resolver (the admin's included) is requested by an anonymous visitor,
a student (alice) and staff (charlie), first with a fixed set of hostile requests each, then
with requests Hypothesis draws: path parameters (valid ids, huge numbers, any text), methods,
query strings, bodies (JSON of any shape, forms with the fields the views read, raw bytes) and
headers (Accept, Authorization, forwarded addresses). A 5xx is a failure; 4xx is the expected
answer to bad input. Derandomized (the same examples every run) and bounded so that it stays
well under a minute on a busy two-core machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter, PathConverter, SlugConverter, StringConverter
from django.urls.resolvers import RegexPattern, RoutePattern
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judge_cast import make_user  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROBLEM_48 = ROOT / "problems" / "048-embedding-tied-head-padding"

pytestmark = [pytest.mark.django_db]

ROLES = ["anonymous", "student", "staff"]
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
# The fields the site's views and forms read, so that random forms reach their validation.
FIELDS = [
    "code",
    "mode",
    "problem",
    "reset",
    "username",
    "password",
    "password1",
    "password2",
    "invite_code",
    "old_password",
    "new_password1",
    "new_password2",
    "verdict",
    "who",
    "page",
    "tag",
    "difficulty",
    "status",
    "next",
    "q",
    "o",
    "p",
    "action",
    "_selected_action",
    "select_across",
    "post",
    "package",
    "only",
    "scope",
    "version",
    "published",
    "e",
    "all",
]
HOSTILE_TEXT = [
    "",
    "0",
    "48",
    "-1",
    "²",
    "٤٨",
    "48\x00",
    "\x00",
    "\ud800",
    "9" * 4301,
    str(2**63),
    "problem-48",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "%00",
    "%C2%B2",
    "\u202e",
    "a" * 5000,
    "null",
    "[]",
    "{}",
    "1e999",
    "NaN",
    "run",
    "submit",
]
# One hostile query per request: a NUL anywhere answers 400 before any view looks at the rest.
QUERIES = [
    "problem=%C2%B2&difficulty=%C2%B2&tag=%FF&page=-1",
    "problem=99999999999&verdict=%3Cx%3E&who=all&status=solved&page=99999",
    "q=%00",
]
HOSTILE_BODIES = [
    b"",
    b"{",
    b"[" * 100_000,
    b'{"problem": ' + b"7" * 5000 + b"}",
    b'{"problem": "\\u0000", "code": "\\ud800", "mode": "run"}',
    b'{"problem": 48, "code": "def f(): pass", "mode": "submit"}',
    b'{"problem": 1e999, "code": [], "mode": {}}',
    b"\xff\xfe\x00garbage",
    json.dumps([{"a": [None] * 50}] * 50).encode(),
]


@dataclass(frozen=True)
class Route:
    parts: tuple[Any, ...]  # RoutePattern / RegexPattern, outermost first

    @property
    def text(self) -> str:
        return "".join(str(p) for p in self.parts)


def routes() -> list[Route]:
    def walk(patterns: list[Any], prefix: tuple[Any, ...]) -> Iterator[Route]:
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + (p.pattern,))
            elif isinstance(p, URLPattern):
                yield Route(prefix + (p.pattern,))

    return list(walk(get_resolver().url_patterns, ()))


@dataclass
class World:
    """The objects the fuzz requests can hit: ids that exist, tokens that work."""

    ints: list[int] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)
    users: dict[str, Any] = field(default_factory=dict)


_PARAM = re.compile(r"<(?:(?P<conv>[^>:]+):)?(?P<name>[^>]+)>")
_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="/"), max_size=30)


def param_values(converter: Any, world: World) -> st.SearchStrategy[str]:
    known = st.sampled_from([str(i) for i in world.ints])
    if isinstance(converter, IntConverter):
        return st.one_of(known, st.integers(0, 10**40).map(str))
    if isinstance(converter, SlugConverter):
        return st.one_of(
            st.just("problem-48"), st.from_regex(r"[-a-zA-Z0-9_]{1,20}", fullmatch=True)
        )
    if isinstance(converter, PathConverter):
        return st.one_of(known, st.sampled_from(HOSTILE_TEXT[1:12]), _TEXT.filter(bool))
    if isinstance(converter, StringConverter):
        return st.one_of(known, _TEXT.filter(bool))
    return st.from_regex(converter.regex, fullmatch=True)


def path_strategy(route: Route, world: World) -> st.SearchStrategy[str]:
    pieces: list[st.SearchStrategy[str]] = []
    for part in route.parts:
        if isinstance(part, RoutePattern):
            route_text = str(part._route)
            last = 0
            for match in _PARAM.finditer(route_text):
                pieces.append(st.just(route_text[last : match.start()]))
                pieces.append(param_values(part.converters[match.group("name")], world))
                last = match.end()
            pieces.append(st.just(route_text[last:]))
        elif isinstance(part, RegexPattern):
            pieces.append(st.from_regex(part.regex, fullmatch=True).map(lambda s: s.lstrip("^")))
    return st.tuples(*pieces).map(lambda xs: "/" + "".join(xs))


def encoded(path: str) -> str:
    return quote(path.encode("utf-8", "surrogatepass"), safe="/")


def fill(route: Route, world: World) -> str:
    """The route with each parameter replaced by an existing id (the deterministic pass)."""
    out = "/"
    for part in route.parts:
        if isinstance(part, RoutePattern):
            out += _PARAM.sub(lambda m: str(world.ints[0]), str(part._route))
        else:
            out += "auth/" if "app_label" in part.regex.pattern else "nothing/here"
    return out


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> World:
    from celery.app.task import Task

    from judge_site.accounts.models import ApiToken
    from judge_site.catalog.services import draft_save, problem_sync
    from judge_site.submissions import services
    from sandbox.grader.package import load_package

    # Nothing reaches a broker or a judge: enqueues are no-ops that look like a sent task.
    monkeypatch.setattr(services, "_enqueue", lambda *args, **kwargs: None)
    monkeypatch.setattr(Task, "apply_async", lambda *a, **k: SimpleNamespace(id="fuzz"))
    problem_sync(load_package(PROBLEM_48))
    from judge_site.catalog.models import Problem

    problem = Problem.objects.get(number=48)
    alice = make_user("alice")
    charlie = make_user("charlie", staff=True)
    charlie.is_superuser = True
    charlie.save()
    sub = services.submission_create(alice, problem, "def f():\n    return 1\n", "run")
    draft_save(alice, problem, "def g():\n    return 2\n")
    world = World(ints=sorted({48, sub.pk, alice.pk, charlie.pk, 1}))
    for name, user in [("student", alice), ("staff", charlie)]:
        world.users[name] = user
        world.tokens[name] = ApiToken.objects.create(user=user, key=ApiToken.generate_key()).key
    return world


def client_for(role: str, world: World) -> Client:
    client = Client()
    if role in world.users:
        client.force_login(world.users[role])
    client.raise_request_exception = False  # a crash must show as the 500 it would be
    return client


def check(
    client: Client,
    method: str,
    path: str,
    *,
    body: bytes = b"",
    ctype: str = "",
    query: str = "",
    headers: dict[str, str] | None = None,
) -> None:
    url = path + ("?" + query if query else "")
    response = client.generic(
        method, url, data=body, content_type=ctype or "application/octet-stream", **(headers or {})
    )
    assert response.status_code < 500, (
        f"{method} {url[:200]} ({ctype}, {len(body)} bytes, {headers}) answered "
        f"{response.status_code}: {response.content[:500]!r}"
    )


def test_every_url_survives_hostile_requests(world: World) -> None:
    """The fixed pass: every pattern, every role, a few requests known to have hurt."""
    for role in ROLES:
        client = client_for(role, world)
        token = world.tokens.get(role, "0" * 40)
        for route in routes():
            if "logout" in route.text:
                continue  # would end the session the rest of the pass relies on
            path = fill(route, world)
            for query in QUERIES:
                check(client, "GET", path, query=query)
            check(client, "GET", path + "9" * 30 + "/")
            check(
                client,
                "POST",
                path,
                body=b"[" * 100_000,
                ctype="application/json",
                headers={"HTTP_AUTHORIZATION": f"Token {token}", "HTTP_ACCEPT": "application/json"},
            )
            check(
                client,
                "POST",
                path,
                body=urlencode({f: "\x00²" for f in FIELDS}).encode(),
                ctype="application/x-www-form-urlencoded",
            )
            check(client, "DELETE", path)


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.text(max_size=20),
        st.sampled_from(HOSTILE_TEXT),
    ),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=12,
)
form_values = st.dictionaries(
    st.sampled_from(FIELDS) | st.text(max_size=10),
    st.sampled_from(HOSTILE_TEXT) | st.text(max_size=30),
    max_size=6,
)
header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60)


@st.composite
def requests(draw: Any, world: World, all_routes: list[Route]) -> dict[str, Any]:
    route = draw(st.sampled_from(all_routes))
    path = encoded(draw(path_strategy(route, world)))
    method = draw(st.sampled_from(METHODS))
    kind = draw(st.sampled_from(["none", "json", "form", "bytes", "hostile"]))
    body, ctype = b"", ""
    if kind == "json":
        body, ctype = json.dumps(draw(json_values)).encode(), "application/json"
    elif kind == "form":
        body = urlencode(draw(form_values), encoding="utf-8", errors="surrogatepass").encode()
        ctype = "application/x-www-form-urlencoded"
    elif kind == "bytes":
        body = draw(st.binary(max_size=200))
        ctype = draw(
            st.sampled_from(
                [
                    "application/json",
                    "text/plain",
                    "multipart/form-data; boundary=x",
                    "application/x-www-form-urlencoded",
                ]
            )
        )
    elif kind == "hostile":
        body, ctype = draw(st.sampled_from(HOSTILE_BODIES)), "application/json"
    query = (
        urlencode(draw(form_values), encoding="utf-8", errors="surrogatepass")
        if draw(st.booleans())
        else draw(
            st.sampled_from(["", "%00", "a=%C2%B2", "page=-1&problem=9999999999999", "=&&=="])
        )
    )
    headers: dict[str, str] = {}
    if draw(st.booleans()):
        headers["HTTP_ACCEPT"] = draw(
            st.sampled_from(["application/json", "text/html", "*/*"]) | header_text
        )
    auth = draw(st.sampled_from(["none", "mine", "other", "garbage"]))
    if auth == "mine":
        headers["HTTP_AUTHORIZATION"] = "Token " + draw(
            st.sampled_from(sorted(world.tokens.values()))
        )
    elif auth == "garbage":
        headers["HTTP_AUTHORIZATION"] = draw(header_text)
    if draw(st.booleans()):
        headers["HTTP_X_FORWARDED_FOR"] = draw(header_text)
    if draw(st.booleans()):
        headers["HTTP_X_REQUESTED_WITH"] = "XMLHttpRequest"
    return {
        "method": method,
        "path": path,
        "body": body,
        "ctype": ctype,
        "query": query,
        "headers": headers,
    }


@pytest.mark.parametrize("role", ROLES)
def test_random_requests_never_answer_5xx(world: World, role: str) -> None:
    all_routes = [r for r in routes() if "logout" not in r.text]
    client = client_for(role, world)

    @settings(
        max_examples=60,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(requests(world, all_routes))
    def one(request: dict[str, Any]) -> None:
        check(
            client,
            request["method"],
            request["path"],
            body=request["body"],
            ctype=request["ctype"],
            query=request["query"],
            headers=request["headers"],
        )

    one()

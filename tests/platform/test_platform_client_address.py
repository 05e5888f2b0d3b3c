"""One client is one address, also behind the compose stack's front door.

Docker's userland proxy (docker-proxy) relays every loopback connection to a published port, so
web used to see one address (its bridge's gateway) for every such client: ten wrong passwords
from anyone locked every account's log-in, and ten sign-ups from anywhere closed sign-up for
an hour. The stack's proxy (service "proxy", docker/proxy-entrypoint.sh) listens in the host's
network namespace, sees each client's own address, and forwards over a unix socket that only
web mounts too (JUDGE_PROXY_SOCKET), with X-Forwarded-For set to that address; Django takes
the header only from that socket (judge_site/core/inputs.py, client_ip).

The unit tests: client_ip's rules. The stack test (the shared stack of `scripts/up`,
tests/platform/conftest.py): clients on 127.0.0.x source addresses (all of 127.0.0.0/8 is
loopback on Linux), which is how the deployment really sees a class on one machine's loopback
or, past the proxy, on the network.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import re
import secrets
import time
import urllib.parse
from http.cookies import SimpleCookie
from typing import Any

import pytest
from compose_stack import Stack
from django.test import RequestFactory

from judge_site.core.inputs import client_ip

# ------------------------------------------------------------------------- client_ip's rules

SOCKET = "/run/tensor-judge/web.sock"


def _request(remote: str, forwarded: str | None = None) -> Any:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR=remote, **extra)


def test_a_request_on_the_proxy_socket_takes_the_address_the_proxy_wrote(settings: Any) -> None:
    settings.JUDGE_PROXY_SOCKET = SOCKET
    settings.TRUST_X_FORWARDED_FOR = False
    # gunicorn gives a unix-socket peer no address: REMOTE_ADDR is "".
    assert client_ip(_request("", "203.0.113.7")) == "203.0.113.7"
    assert client_ip(_request("", "2001:db8::7")) == "2001:db8::7"
    # The proxy's entry is the last one; whatever came before is the client's to write.
    assert client_ip(_request("", "198.51.100.1, 203.0.113.7")) == "203.0.113.7"
    # No usable header: no address (never someone else's).
    assert client_ip(_request("", "")) == "0.0.0.0"
    assert client_ip(_request("", "not-an-address")) == "0.0.0.0"
    assert client_ip(_request("")) == "0.0.0.0"


def test_a_request_over_tcp_never_chooses_its_address(settings: Any) -> None:
    """TCP peers (the compose network, the health check) have an address: theirs counts,
    whatever they put in X-Forwarded-For, unless TRUST_X_FORWARDED_FOR says a proxy is in
    front of every request (a self-hoster's gunicorn behind their own proxy)."""
    settings.JUDGE_PROXY_SOCKET = SOCKET
    settings.TRUST_X_FORWARDED_FOR = False
    assert client_ip(_request("172.18.0.5", "203.0.113.7")) == "172.18.0.5"
    settings.TRUST_X_FORWARDED_FOR = True
    assert client_ip(_request("172.18.0.5", "203.0.113.7")) == "203.0.113.7"


def test_without_the_proxy_socket_a_peer_without_address_trusts_no_header(settings: Any) -> None:
    settings.JUDGE_PROXY_SOCKET = ""
    settings.TRUST_X_FORWARDED_FOR = False
    assert client_ip(_request("", "203.0.113.7")) == "0.0.0.0"
    assert client_ip(_request("192.0.2.4", "203.0.113.7")) == "192.0.2.4"


# ------------------------------------------------------------------------ on the compose stack


class SourceClient:
    """A browser on one source address: cookies kept, forms posted with Django's CSRF token,
    redirects not followed (a 302 is the answer looked at)."""

    def __init__(self, url: str, source: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.source = source
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection(
            self.host, self.port, timeout=60, source_address=(self.source, 0)
        )
        try:
            sent = dict(headers or {})
            if self.cookies:
                sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            conn.request(method, path, body=body, headers=sent)
            resp = conn.getresponse()
            text = resp.read().decode(errors="replace")
            for value in resp.headers.get_all("Set-Cookie") or []:
                for key, morsel in SimpleCookie(value).items():
                    self.cookies[key] = morsel.value
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, text
        finally:
            conn.close()

    def post_form(
        self, path: str, fields: dict[str, str], headers: dict | None = None
    ) -> tuple[int, dict[str, str], str]:
        status, _, page = self.request("GET", path, headers=headers)
        assert status == 200, (self.source, path, status, page[:300])
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, f"no CSRF token on {path}"
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token.group(1)})
        return self.request(
            "POST", path, body.encode(),
            {"Content-Type": "application/x-www-form-urlencoded",
             "Referer": f"http://{self.host}:{self.port}{path}", **(headers or {})},
        )  # fmt: skip


CLASS_SIZE = 30
# Source addresses of the class (127.0.0.10 ...), the guesser and two other clients.
STUDENTS = [f"127.0.0.{10 + i}" for i in range(CLASS_SIZE)]
GUESSER, OTHER, OWNER_ELSEWHERE = "127.0.0.2", "127.0.0.3", "127.0.0.4"


@pytest.mark.docker
@pytest.mark.slow
def test_the_stack_counts_each_client_by_its_own_address(stack: Stack) -> None:
    """A class of 30 signs up from 30 addresses at once, past the cap of 10 per address and
    hour that used to be site-wide; then one client's 10 wrong passwords lock that client,
    not another client's log-in (nor the account's owner elsewhere)."""
    tag = secrets.token_hex(3)
    password = f"pw-{secrets.token_hex(8)}"
    names = [f"class{tag}s{i:02d}" for i in range(CLASS_SIZE)]

    def sign_up(i: int) -> tuple[str, int, str]:
        fields = {"username": names[i], "password1": password, "password2": password}
        status, headers, page = SourceClient(stack.url, STUDENTS[i]).post_form(
            "/accounts/signup/", fields
        )
        return STUDENTS[i], status, page[:300] if status != 302 else headers.get("location", "")

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(sign_up, range(CLASS_SIZE)))
    signup_s = time.monotonic() - start
    print(f"{CLASS_SIZE} sign-ups from {CLASS_SIZE} addresses: {signup_s:.1f} s")
    refused = [o for o in outcomes if o[1] != 302]
    assert not refused, f"sign-ups refused: {refused}"
    # Each account was counted against its own client's address, as the proxy saw it.
    rows = stack.psql(
        "SELECT u.username, host(r.client_ip) FROM accounts_registration r "
        f"JOIN auth_user u ON u.id = r.user_id WHERE u.username LIKE 'class{tag}s%'"
    )
    assert rows.returncode == 0, rows.stderr
    seen = dict(line.split("|") for line in rows.stdout.split())
    assert seen == dict(zip(names, STUDENTS, strict=True)), seen

    # One client guesses the first student's password ten times: the limit per address.
    victim, other_account = names[0], names[1]
    guesser = SourceClient(stack.url, GUESSER)
    start = time.monotonic()
    answers = [
        guesser.post_form("/accounts/login/", {"username": victim, "password": f"wrong-{n}"})[0]
        for n in range(10)
    ]
    assert answers[:9] == [200] * 9, answers  # the form again, with its error
    assert answers[9] in (200, 429), answers
    # That client is locked now, whatever account or address header it tries ...
    status, _, _ = guesser.post_form(
        "/accounts/login/", {"username": other_account, "password": password}
    )
    assert status == 429, f"the guesser's address is not locked: {status}"
    status, _, _ = guesser.post_form(
        "/accounts/login/", {"username": other_account, "password": password},
        headers={"X-Forwarded-For": OTHER},
    )  # fmt: skip
    assert status == 429, f"the guesser chose its address with X-Forwarded-For: {status}"
    # ... another client's log-in to another account works ...
    status, headers, page = SourceClient(stack.url, OTHER).post_form(
        "/accounts/login/", {"username": other_account, "password": password}
    )
    assert status == 302, f"another client cannot log in: {status} {page[:300]}"
    # ... and so does the guessed account's owner, from their own address.
    status, headers, page = SourceClient(stack.url, OWNER_ELSEWHERE).post_form(
        "/accounts/login/", {"username": victim, "password": password}
    )
    assert status == 302, f"the owner cannot log in: {status} {page[:300]}"
    print(f"13 log-ins from 3 addresses: {time.monotonic() - start:.1f} s")

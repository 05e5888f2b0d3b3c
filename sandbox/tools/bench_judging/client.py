"""The site, as bench_judging's clients see it: its JSON API through each user's token, sign-up
for more users, one judging submitted and polled, and clients sharing a list of judgings."""

from __future__ import annotations

import collections
import http.cookiejar
import ipaddress
import json
import re
import secrets
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class BenchError(Exception):
    pass


def check_loopback(url: str) -> None:
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError as exc:
        raise BenchError(f"cannot resolve {host!r}: {exc}") from None
    if not addresses or not all(ipaddress.ip_address(a).is_loopback for a in addresses):
        raise BenchError(f"{url} is not a loopback address: this script only loads a local judge")


class User:
    """One account's API token and the times of its recent judgings (for the rate limit)."""

    def __init__(self, url: str, token: str, name: str, rate_limit: int) -> None:
        self.url, self.token, self.name, self.rate_limit = url.rstrip("/"), token, name, rate_limit
        self.recent: collections.deque[float] = collections.deque()
        self.lock = threading.Lock()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Token {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise BenchError(f"HTTP {exc.code} on {method} {path}: {exc.read()[:300]!r}") from None

    def wait_for_slot(self) -> None:
        """Sleep until one more judging stays within the site's per-minute limit."""
        with self.lock:
            while True:
                now = time.monotonic()
                while self.recent and now - self.recent[0] > 61.0:
                    self.recent.popleft()
                if len(self.recent) < self.rate_limit:
                    self.recent.append(now)
                    return
                time.sleep(61.0 - (now - self.recent[0]))


def sign_up(url: str, name: str) -> str:
    """Create an account through the sign-up page and return its new API token."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def csrf_of(page: str) -> str:
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if not found:
            raise BenchError("no CSRF token on the sign-up/token page")
        return found.group(1)

    def post(path: str, fields: dict[str, str], page: str) -> str:
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf_of(page), **fields}).encode()
        request = urllib.request.Request(url + path, data=data, method="POST")
        request.add_header("Referer", url + path)
        with opener.open(request, timeout=30) as response:
            return response.read().decode()

    page = opener.open(url + "/accounts/signup/", timeout=30).read().decode()
    password = secrets.token_urlsafe(18)
    post("/accounts/signup/", {"username": name, "password1": password, "password2": password}, page)
    page = opener.open(url + "/accounts/token/", timeout=30).read().decode()
    if 'id="api-token"' not in page:
        page = post("/accounts/token/", {}, page)
    found = re.search(r'id="api-token">([0-9a-f]+)<', page)
    if not found:
        raise BenchError(f"sign-up of {name} did not give a token (is sign-up open?)")
    return found.group(1)


def load_tokens(url: str, token: str, path: Path, wanted: int) -> list[str]:
    """``wanted`` working tokens: ``token``, then those kept in ``path`` (one per line), then
    accounts signed up now (their tokens appended to ``path`` for the next run: a site caps
    sign-ups per address)."""
    kept = path.read_text().split() if path.exists() else []
    tokens: list[str] = []
    for key in [token, *kept] if token else kept:
        if key and key not in tokens and len(tokens) < wanted:
            try:
                User(url, key, "check", 1).call("GET", "/api/v1/problems")
                tokens.append(key)
            except BenchError:
                pass  # another site's token, or revoked
    tag = secrets.token_hex(3)
    while len(tokens) < wanted:
        try:
            new = sign_up(url, f"bench-{tag}-{len(tokens)}")
        except urllib.error.HTTPError as exc:
            raise BenchError(
                f"sign-up refused (HTTP {exc.code}): put {wanted - len(tokens)} more tokens into "
                f"{path}, one per line (accounts made by staff; `manage.py create_api_token USER`)"
            ) from None
        tokens.append(new)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(new + "\n")
    return tokens


@dataclass
class Judged:
    sub_id: int
    mode: str
    submitted_at: float  # monotonic, before the POST
    done_at: float  # monotonic, when a poll first saw it done
    verdict: str
    speedup: float | None
    environment: dict[str, Any] = field(default_factory=dict)
    benchmark: dict[str, Any] | None = None

    @property
    def latency_s(self) -> float:
        return self.done_at - self.submitted_at


# poll_s PAGE: poll as the problem page and the CLI do (after 100 ms, then 1.5x longer each
# time, up to every second), so a burst of many clients loads the site as browsers would.
PAGE = -1.0
# One client's Submits are polled every 0.2 s: polling every 20 ms keeps a web worker busy
# (about 50 requests a second) on the CPUs beside the timing it measures.
SUBMIT_POLL_S = 0.2


def judge_once(user: User, problem: int, code: str, mode: str, poll_s: float, max_wait_s: float) -> Judged:
    user.wait_for_slot()
    t0 = time.monotonic()
    created = user.call("POST", "/api/v1/submissions", {"problem": problem, "code": code, "mode": mode})
    sub_id = int(created["id"])
    deadline = t0 + max_wait_s
    wait_s = 0.1 if poll_s == PAGE else poll_s
    while True:
        data = user.call("GET", f"/api/v1/submissions/{sub_id}")
        if data.get("status") == "done":
            done = time.monotonic()
            bench = data.get("benchmark") or None
            return Judged(
                sub_id, mode, t0, done, str(data.get("verdict")),
                float(bench["speedup"]) if bench and bench.get("speedup") is not None else None,
                data.get("environment") or {}, bench,
            )  # fmt: skip
        if time.monotonic() > deadline:
            raise BenchError(f"submission {sub_id} not judged within {max_wait_s:.0f} s")
        time.sleep(wait_s)
        if poll_s == PAGE:
            wait_s = min(1.0, wait_s * 1.5)


def run_clients(
    users: list[User], clients: int, jobs: list[tuple[str, str]], problem: int, poll_s: float,
    max_wait_s: float, think_s: float = 0.0,
) -> tuple[list[Judged], list[str], float]:
    """``jobs`` (mode, code) shared by ``clients`` threads; client i uses the users i, i+C, ...
    ``think_s``: each client's pause after a verdict before its next submission.
    Returns (judged, errors, seconds from the first submit to the last verdict)."""
    queue = collections.deque(jobs)
    lock = threading.Lock()
    judged: list[Judged] = []
    errors: list[str] = []
    start = time.monotonic()

    def client(index: int) -> None:
        mine = users[index::clients] or [users[index % len(users)]]
        turn = 0
        while True:
            with lock:
                if not queue:
                    return
                mode, code = queue.popleft()
            user = mine[turn % len(mine)]
            turn += 1
            if think_s > 0 and turn > 1:
                time.sleep(think_s)
            try:
                result = judge_once(user, problem, code, mode, poll_s, max_wait_s)
                with lock:
                    judged.append(result)
            except Exception as exc:  # counted as lost
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    end = max((j.done_at for j in judged), default=time.monotonic())
    return judged, errors, end - start

"""A small command-line client of the judge's API (standard library only).

    python -m judge_site.cli submit 48 my.py [--mode run|submit] [--url URL] [--token KEY]
    python -m judge_site.cli submit 48 my.py --mode scratch --script try.py  (prints its output)
    python -m judge_site.cli problems

URL and token default to the environment variables JUDGE_URL and JUDGE_TOKEN (get a token on
the site's account page, or with ``manage.py create_api_token USER``). Exit code: 0 when the
verdict is AC, 1 for any other verdict, 2 when the judge could not be reached or refused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, TextIO

DEFAULT_URL = "http://127.0.0.1:8000"


class ApiError(Exception):
    pass


class Client:
    def __init__(self, url: str, token: str, timeout_s: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Token {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            try:
                message = json.loads(exc.read()).get("error", exc.reason)
            except (ValueError, AttributeError):
                message = exc.reason
            raise ApiError(f"HTTP {exc.code}: {message}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise ApiError(f"cannot reach {self.url}: {exc}") from None


def _fmt_test(test: dict[str, Any]) -> str:
    time_ms = test.get("time_ms")
    when = f"{time_ms:8.1f} ms" if isinstance(time_ms, int | float) else " " * 11
    kind = "public" if test.get("public") else "hidden"
    line = f"  {test.get('verdict', '?'):<3} {when}  {test.get('name', '?')} ({kind})"
    if test.get("message"):
        line += f"\n        {test['message']}"
    return line


def submit(
    client: Client,
    problem: str,
    code: str,
    mode: str,
    *,
    out: TextIO | None = None,
    poll_s: float = 1.0,  # the longest wait between polls (the first ones come at 0.1 s)
    max_wait_s: float = 900.0,
    script: str | None = None,  # a scratch run's lines (mode "scratch")
) -> dict[str, Any]:
    """Submit, print progress as tests finish, return the final submission JSON."""
    out = out or sys.stdout
    body: dict[str, Any] = {"problem": problem, "code": code, "mode": mode}
    if script is not None:
        body["script"] = script
    created = client.call("POST", "/api/v1/submissions", body)
    sub_id = created["id"]
    print(f"submission #{sub_id} queued ({mode})", file=out, flush=True)
    shown = 0
    last_status = ""
    deadline = time.monotonic() + max_wait_s
    wait_s = min(0.1, poll_s)
    while True:
        data = client.call("GET", f"/api/v1/submissions/{sub_id}")
        status = data["status"]
        if status == "queued" and data.get("queue_position") and status != last_status:
            print(f"queued, position {data['queue_position']}", file=out, flush=True)
        elif status == "running" and last_status != "running":
            print("running", file=out, flush=True)
        last_status = status
        tests = data.get("tests") or []
        for test in tests[shown:]:
            print(_fmt_test(test), file=out, flush=True)
        shown = len(tests)
        if status == "done":
            return data
        if time.monotonic() > deadline:
            raise ApiError(f"gave up waiting for submission #{sub_id} after {max_wait_s:.0f} s")
        time.sleep(wait_s)
        wait_s = min(poll_s, wait_s * 1.5)


def _print_verdict(data: dict[str, Any], out: TextIO) -> None:
    if data.get("mode") == "scratch":  # what the script printed; a verdict for errors only
        print(data.get("output") or "(your script printed nothing)", file=out)
        print(f"verdict: {data.get('verdict') or 'none (your script ran to its end)'}", file=out)
        return
    print(f"verdict: {data.get('verdict')}", file=out)
    if data.get("message"):
        print(data["message"], file=out)
    bench = data.get("benchmark")
    if bench and bench.get("speedup") is not None and bench.get("submission_ms") is not None:
        print(
            f"speedup: {bench['speedup']:.2f}x  (yours {bench['submission_ms']:.3f} ms, "
            f"baseline {bench['baseline_ms']:.3f} ms)",
            file=out,
        )
    elif bench:  # a rejected timing has no figure (the result says why)
        print(f"speedup: none, timing rejected: {bench.get('note') or bench.get('rule')}", file=out)
    if data.get("problem_version"):
        print(f"problem version: {data['problem_version']}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m judge_site.cli", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--url", default=os.environ.get("JUDGE_URL", DEFAULT_URL))
    parser.add_argument("--token", default=os.environ.get("JUDGE_TOKEN", ""))
    commands = parser.add_subparsers(dest="command", required=True)
    sub = commands.add_parser("submit", help="submit a file and wait for the verdict")
    sub.add_argument("problem", help="problem number or slug")
    sub.add_argument("file", type=Path)
    sub.add_argument("--mode", choices=["run", "submit", "scratch"], default="submit")
    sub.add_argument("--script", type=Path, default=None,
                     help="with --mode scratch: the lines to run after FILE")
    commands.add_parser("problems", help="list the problems")
    args = parser.parse_args(argv)
    if not args.token:
        print("error: no token: pass --token or set JUDGE_TOKEN", file=sys.stderr)
        return 2
    client = Client(args.url, args.token)
    try:
        if args.command == "problems":
            for p in client.call("GET", "/api/v1/problems"):
                print(f"{p['number']:>4}  {p['difficulty']:<7} {p['slug']}  {p['title']}")
            return 0
        try:
            code = args.file.read_text()
            script = args.script.read_text() if args.script is not None else None
        except OSError as exc:
            print(f"error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
            return 2
        data = submit(client, args.problem, code, args.mode, script=script)
    except ApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    _print_verdict(data, sys.stdout)
    clean = data.get("verdict") is None if args.mode == "scratch" else data.get("verdict") == "AC"
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())

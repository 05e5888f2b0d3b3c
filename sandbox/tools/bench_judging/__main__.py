"""bench_judging's command line: python -m sandbox.tools.bench_judging (scripts/bench_judging).

Standard library and this repository's sandbox package only, no torch or Django behind any of
its imports: it runs under the system's python3 too (scripts/lib/run_module, where there is no
.venv)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.parse
from pathlib import Path

from sandbox.tools import CATALOG, ROOT, bench_judging
from sandbox.tools.bench_judging.client import BenchError, User, check_loopback, load_tokens
from sandbox.tools.bench_judging.parts import Bench
from sandbox.tools.bench_judging.plots import write_plots

DEFAULT_FILE = CATALOG / "048-embedding-tied-head-padding" / "solutions" / "AC" / "gather.py"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench_judging", description=(bench_judging.__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--url", default=os.environ.get("JUDGE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("JUDGE_TOKEN", ""))
    parser.add_argument("--users", type=int, default=8, help="accounts to judge under")
    parser.add_argument("--tokens-file", type=Path, help="their tokens, kept between runs "
                        "(default .cache/bench-judging-tokens-HOST-PORT)")  # fmt: skip
    parser.add_argument("--rate-limit", type=int, default=10, help="the site's JUDGE_RATE_LIMIT_PER_MINUTE")
    parser.add_argument("--problem", type=int, default=48)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="a correct solution")
    parser.add_argument("--functions", default="embed,last_token_logits,pad_batch")
    parser.add_argument("--only", default="burst,latency,cv,load,order", help="also: sweep")
    parser.add_argument("--burst", type=int, default=60)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--latency-n", type=int, default=20)
    parser.add_argument("--cv-n", type=int, default=10)
    parser.add_argument("--think-s", type=float, default=3.0,
                        help="latency and cv: the one client's pause between a verdict and its next "
                        "submission (a student reading the result; 0: back to back)")  # fmt: skip
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--max-wait-s", type=float, default=180.0)
    parser.add_argument("--settle-s", type=float, default=120.0,
                        help="before a part, wait at most this long for this machine's CPUs to rest "
                        "(its pools refilled)")  # fmt: skip
    parser.add_argument("--max-total-s", type=float, default=1800.0)
    parser.add_argument("--json", type=Path, help="write every judging's figures here")
    parser.add_argument("--svg-dir", type=Path, help="write latency/throughput plots here")
    parser.add_argument("--plot-from", type=Path, help="only draw the plots of a --json report")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    opts = parse(argv)
    if opts.plot_from:
        write_plots(json.loads(opts.plot_from.read_text()), opts.svg_dir or Path("."), opts.burst,
                    opts.clients)  # fmt: skip
        return 0
    url = opts.url.rstrip("/")
    check_loopback(url)
    where = urllib.parse.urlsplit(url)
    opts.tokens_file = opts.tokens_file or (
        ROOT / ".cache" / f"bench-judging-tokens-{where.hostname}-{where.port or 80}"
    )
    only = {s.strip() for s in opts.only.split(",") if s.strip()}
    code = opts.file.read_text()

    tokens = load_tokens(url, opts.token, opts.tokens_file, max(1, opts.users))
    users = [User(url, t, f"user{i}", opts.rate_limit) for i, t in enumerate(tokens)]
    print(f"judge {url}: {len(users)} users, problem {opts.problem}, file {opts.file.name}")

    bench = Bench(opts, url, users, code)
    status = bench.run(only)
    if opts.json:
        opts.json.write_text(json.dumps(bench.report, indent=1) + "\n")
    if opts.svg_dir:
        write_plots(bench.report, opts.svg_dir, opts.burst, opts.clients)
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        print(f"bench_judging: {exc}", file=sys.stderr)
        sys.exit(2)

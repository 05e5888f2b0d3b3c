"""scripts/bench_judging (sandbox/tools/bench_judging/): its figures, its imports (the system's
python3 runs it: no torch, no Django) and one whole run, every part but the sweep, against a
small fake site on loopback (the real one needs a compose stack and minutes)."""

from __future__ import annotations

import ast
import itertools
import json
import math
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sandbox.host.backends.cpu_sets import CONTENDED_CPU_PRESSURE
from sandbox.tools.bench_judging import __main__ as cli
from sandbox.tools.bench_judging.client import Judged
from sandbox.tools.bench_judging.figures import (
    cv_pct,
    meets,
    pct,
    repeated,
    trust_lines,
    verdict_line,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sandbox" / "tools" / "bench_judging"


def test_imports_only_the_standard_library_and_the_sandbox_package() -> None:
    names = set()
    for node in (n for f in PACKAGE.glob("*.py") for n in ast.walk(ast.parse(f.read_text()))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    assert names - set(sys.stdlib_module_names) == {"sandbox"}


def test_help_runs_with_torch_and_django_out_of_reach() -> None:
    """As under the system's python3 (scripts/lib/run_module where there is no .venv)."""
    block = (
        "import sys, runpy\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'numpy', 'django', 'celery', 'judge_site'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "sys.argv = ['bench_judging', '--help']\n"
        "runpy.run_module('sandbox.tools.bench_judging', run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: bench_judging [-h] [--url URL]")
    assert "Throughput, latency and timing precision of a running judge" in done.stdout


def test_percentiles_cv_and_targets() -> None:
    assert pct([3.0, 1.0, 2.0, 4.0], 0.5) == 2.5
    assert pct([1.0, 2.0], 0.95) == pytest.approx(1.95)
    assert math.isnan(pct([], 0.5)) and math.isnan(cv_pct([1.0]))
    assert cv_pct([1.0, 1.0]) == 0.0
    assert meets("cv_pct", 3.0) and not meets("cv_pct", 3.1) and not meets("cv_pct", math.nan)
    assert meets("order_right", 19) and not meets("order_right", 18)
    assert verdict_line("burst_lost", 0, "lost").endswith("PASS")
    assert verdict_line("run_p50_s", math.nan, "p50", " s").endswith("FAIL")


def test_repeated_runs_each_public_function_that_many_times() -> None:
    code = "calls = []\n\ndef embed(x):\n    calls.append(x)\n    return x + 1\n"
    scope: dict[str, Any] = {}
    exec(repeated(code, 6, ["embed", "absent"]), scope)  # noqa: S102 (our own text)
    assert scope["embed"](1) == 2
    assert scope["calls"] == [1] * 6


def test_a_verified_timing_that_waited_beyond_the_bound_is_counted() -> None:
    def judged(sub_id: int, wait: float, trust: str) -> Judged:
        return Judged(sub_id, "submit", float(sub_id), float(sub_id) + 1, "AC", 1.5,
                      {"timing_cpu_pressure": wait}, {"trust": trust})  # fmt: skip

    beyond = CONTENDED_CPU_PRESSURE + 0.1
    lines, wrong = trust_lines([judged(2, beyond, "verified"), judged(1, beyond, "contended"),
                                judged(3, 0.0, "verified")])  # fmt: skip
    assert wrong == 1
    assert [line.split()[0] for line in lines[1:]] == ["1", "2", "3"]  # in submission order
    assert lines[2].endswith("shown verified")


class FakeSite(BaseHTTPRequestHandler):
    """The API's three paths: every judging done at once, AC; a Submit's benchmark as the
    worker writes it (the slower solution of an ordering pair has the lower speedup)."""

    ids = itertools.count(1)
    submissions: dict[int, tuple[str, str]] = {}

    def log_message(self, *args: Any) -> None:
        pass

    def answer(self, body: Any, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.headers.get("Authorization") != "Token key":
            return self.answer({"error": "no such token"}, 401)
        if self.path == "/api/v1/problems":
            return self.answer([])
        sub_id = int(re.fullmatch(r"/api/v1/submissions/(\d+)", self.path).group(1))  # type: ignore[union-attr]
        mode, code = self.submissions[sub_id]
        bench = {"speedup": 1.5 if "range(5)" in code else 2.0, "trust": "verified", "verified": True}
        environment = {"phases": {"run": 0.02}, "sandbox": "pooled", "timing_cpu_pressure": 0.01}
        return self.answer({"id": sub_id, "status": "done", "verdict": "AC",
                            "benchmark": bench if mode == "submit" else None,
                            "environment": environment})  # fmt: skip

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        sub_id = next(self.ids)
        self.submissions[sub_id] = (body["mode"], body["code"])
        self.answer({"id": sub_id}, 201)


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeSite)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_whole_run_against_a_fake_site(
    site: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    status = cli.main([
        "--url", site, "--token", "key", "--users", "1", "--tokens-file", str(tmp_path / "tokens"),
        "--rate-limit", "1000", "--burst", "4", "--clients", "2", "--latency-n", "2", "--cv-n", "3",
        "--think-s", "0", "--pairs", "2", "--settle-s", "0", "--json", str(report),
        "--svg-dir", str(tmp_path),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 1  # two pairs of the 19 the ordering wants
    figures = json.loads(report.read_text())["figures"]
    assert figures["burst_lost"] == 0 and figures["cv_pct"] == 0.0 and figures["order_right"] == 2
    assert figures["contended_verified"] == 0
    assert "pairs ordered right (of 2)" in out and "measured ratio of speedups: median 1.333" in out
    assert {p.name for p in tmp_path.glob("*.svg")} == {
        "run-latency.svg", "burst-latency.svg", "throughput.svg"
    }


def test_the_url_must_be_a_loopback_address() -> None:
    with pytest.raises(cli.BenchError, match="not a loopback address"):
        cli.main(["--url", "http://192.0.2.1:8000"])

"""bench_judging's parts (burst, latency, cv, load, order, sweep: the package's docstring says
what each runs), each printing its figures and keeping them in the run's report."""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import time
from typing import Any

from sandbox.host.backends.cpu_sets import CONTENDED_CPU_PRESSURE
from sandbox.tools.bench_judging.client import (
    PAGE,
    SUBMIT_POLL_S,
    BenchError,
    Judged,
    User,
    judge_once,
    run_clients,
)
from sandbox.tools.bench_judging.figures import (
    SATURATED_HOST_PRESSURE,
    TARGETS,
    as_float,
    cv_pct,
    meets,
    pct,
    phase_medians,
    repeated,
    trust_lines,
    verdict_line,
    waited_beyond_bound,
)
from sandbox.tools.bench_judging.machine import CpuMeter, cpu_lines, load_note, settle

# The parts in the order they run (--only picks among them, in any order).
PARTS = ("latency", "burst", "cv", "load", "order", "sweep")


class Bench:
    """One run against the site: its users, the correct solution, the report and the lines
    printed, and the deadline of the whole run (judge_once's own wait is bounded; this stops
    new work)."""

    def __init__(self, opts: argparse.Namespace, url: str, users: list[User], code: str) -> None:
        self.opts, self.users, self.code = opts, users, code
        self.functions = [f.strip() for f in opts.functions.split(",") if f.strip()]
        self.started = time.monotonic()
        self.report: dict[str, Any] = {"url": url, "figures": {}, "judgings": {}}
        self.figures: dict[str, float] = self.report["figures"]
        self.lines: list[str] = []

    def run(self, only: set[str]) -> int:
        """The warm-up, then each part of ``only``; 1 when a figure misses its target."""
        self.warm_up()
        for part in PARTS:
            if part in only and not self.over_time():
                getattr(self, part)()
        if "contended_verified" in self.figures:
            self.out(verdict_line("contended_verified", self.figures["contended_verified"],
                                  "contended timings shown verified"))  # fmt: skip
        self.out(f"total {time.monotonic() - self.started:.0f} s; {load_note()}")
        self.report["lines"] = self.lines
        failed = [k for k in self.figures if k in TARGETS and not meets(k, self.figures[k])]
        return 1 if failed else 0

    # ---------------------------------------------------------------- the parts' helpers

    def out(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)

    def over_time(self) -> bool:
        return time.monotonic() - self.started > self.opts.max_total_s

    def rested(self) -> None:
        waited = settle(self.opts.settle_s)
        if waited > 5.0:  # more than the first windows of an idle machine
            self.out(f"  (waited {waited:.0f} s for this machine's CPUs to rest)")

    def clients(
        self, clients: int, mode: str, count: int, poll_s: float, think_s: float = 0.0
    ) -> tuple[list[Judged], list[str], float]:
        """``count`` judgings of the solution in ``mode`` from ``clients`` clients."""
        o = self.opts
        jobs = [(mode, self.code)] * count
        return run_clients(self.users, clients, jobs, o.problem, poll_s, o.max_wait_s, think_s)

    def keep(self, name: str, judged: list[Judged]) -> None:
        self.report["judgings"][name] = [
            {"id": j.sub_id, "mode": j.mode, "latency_s": round(j.latency_s, 4), "verdict": j.verdict,
             "speedup": j.speedup, "trust": (j.benchmark or {}).get("trust"),
             "rule": (j.benchmark or {}).get("rule"), "environment": j.environment} for j in judged
        ]  # fmt: skip

    def honesty(self, part: str, judged: list[Judged]) -> None:
        """Each Submit's trust beside its CPU wait; the count of those that waited beyond the
        contended bound and are shown verified, added to the figure (target 0)."""
        lines, wrong = trust_lines(judged)
        for line in lines:
            self.out(line)
        beyond = sum(1 for j in judged if waited_beyond_bound(j))
        self.figures["contended_verified"] = self.figures.get("contended_verified", 0) + wrong
        self.report.setdefault("contended", {})[part] = {"waited_beyond_bound": beyond, "shown_verified": wrong}
        by_trust: dict[str, list[float]] = collections.defaultdict(list)
        for j in judged:
            if j.speedup is not None and j.verdict == "AC":
                by_trust[str((j.benchmark or {}).get("trust", "none"))].append(j.speedup)
        self.out(f"    waited beyond the contended bound ({CONTENDED_CPU_PRESSURE:.2f}): {beyond}/{len(judged)}, "
                 f"of them shown verified: {wrong}; speedup CV by trust: "
                 + ", ".join(f"{k} {cv_pct(v):.2f} % (n={len(v)}, mean {statistics.mean(v):.3f})"
                             for k, v in sorted(by_trust.items()))
                 + f"; {load_note()}")  # fmt: skip
        hosts = [h for h in (as_float(j.environment.get("timing_host_cpu_pressure")) for j in judged) if h is not None]
        if hosts and statistics.median(hosts) > SATURATED_HOST_PRESSURE:
            self.out(f"    the host's CPUs were saturated during the timings (host CPU pressure median "
                     f"{statistics.median(hosts):.2f}): this part's CV measures the machine's other work, "
                     "as much as the judge")  # fmt: skip

    def speedups(self, judged: list[Judged]) -> list[float]:
        """The speedups of the AC judgings, printed as a mean and range where there are any."""
        speedups = [j.speedup for j in judged if j.speedup is not None and j.verdict == "AC"]
        if speedups:
            self.out(f"  speedups: mean {statistics.mean(speedups):.3f}, range {min(speedups):.3f}-{max(speedups):.3f}")
        return speedups

    # ---------------------------------------------------------------- the parts

    def warm_up(self) -> None:
        """One Run, so every worker process has learned the sandbox limits (pool misses)."""
        warm, _, _ = self.clients(2, "run", 2, 0.05)
        if not warm or warm[0].verdict != "AC":
            raise BenchError(f"warm-up Run was not AC: {[j.verdict for j in warm]}")

    def latency(self) -> None:
        o = self.opts
        self.rested()
        judged, errors, span = self.clients(1, "run", o.latency_n, 0.02, o.think_s)
        if not o.think_s:
            self.report["throughput"] = [(1, 60.0 * len(judged) / span if span > 0 else 0.0)]
        lat = [j.latency_s for j in judged]
        self.figures["run_p50_s"], self.figures["run_p95_s"] = pct(lat, 0.5), pct(lat, 0.95)
        self.out(f"single client, {len(judged)} Runs, {o.think_s:g} s apart ({len(errors)} lost):")
        self.out(verdict_line("run_p50_s", self.figures["run_p50_s"], "Run submit -> verdict p50", " s"))
        self.out(f"  {'Run submit -> verdict p95':<46} {self.figures['run_p95_s']:>9.3f} s")
        self.out(phase_medians(judged))
        self.out(f"    {load_note()}")
        self.keep("latency", judged)
        self.report["latency_values"] = lat

    def burst(self) -> None:
        o = self.opts
        self.rested()  # the pools refilled after the previous part
        meter = CpuMeter()
        judged, errors, span = self.clients(o.clients, "run", o.burst, PAGE)
        costs = meter.per_judging(len(judged))
        lost = len(errors) + sum(1 for j in judged if j.verdict != "AC")
        self.figures["burst_per_min"] = 60.0 * len(judged) / span if span > 0 else 0.0
        self.figures["burst_lost"] = lost
        self.report.setdefault("throughput", []).append((o.clients, self.figures["burst_per_min"]))
        lat = [j.latency_s for j in judged]
        self.out(f"burst: {o.burst} Runs from {o.clients} clients in {span:.1f} s:")
        self.out(verdict_line("burst_per_min", self.figures["burst_per_min"], "judgings per minute", "/min"))
        self.out(verdict_line("burst_lost", lost, "lost or not AC"))
        self.out(f"  {'latency under the burst p50 / p95':<46} {pct(lat, 0.5):>9.3f} / {pct(lat, 0.95):.3f} s")
        self.out(phase_medians(judged))
        for line in cpu_lines(costs, os.cpu_count() or 1):
            self.out(line)
        self.report["burst_cpu_s_per_judging"] = costs
        for e in errors[:3]:
            self.out(f"    error: {e}")
        self.out(f"    {load_note()}")
        self.keep("burst", judged)
        self.report["burst_values"] = lat

    def cv(self) -> None:
        o = self.opts
        self.rested()
        judged, errors, _ = self.clients(1, "submit", o.cv_n, SUBMIT_POLL_S, o.think_s)
        self.out(f"the same correct solution submitted {len(judged)} times, one at a time ({len(errors)} lost):")
        self.figures["cv_pct"] = cv_pct(self.speedups(judged))
        self.figures["submit_p50_s"] = pct([j.latency_s for j in judged], 0.5)
        self.out(verdict_line("cv_pct", self.figures["cv_pct"], "speedup CV", " %"))
        self.out(verdict_line("submit_p50_s", self.figures["submit_p50_s"], "Submit submit -> verdict p50", " s"))
        self.out(phase_medians(judged))
        self.honesty("cv", judged)
        self.keep("cv", judged)

    def load(self) -> None:
        self.rested()
        judged, errors, span = self.clients(4, "submit", 20, PAGE)
        self.out(f"under load: 4 clients, {len(judged)} Submits at once in {span:.1f} s ({len(errors)} lost, "
                 f"{60 * len(judged) / span:.1f} Submits/min):")  # fmt: skip
        self.figures["cv_load_pct"] = cv_pct(self.speedups(judged))
        self.out(verdict_line("cv_load_pct", self.figures["cv_load_pct"], "speedup CV under load", " %"))
        self.out(f"  {'Submit latency under load p50':<46} {pct([j.latency_s for j in judged], 0.5):>9.3f} s")
        self.out(phase_medians(judged))
        self.honesty("load", judged)
        self.keep("load", judged)

    def order(self) -> None:
        o = self.opts
        self.rested()
        fast, slow = repeated(self.code, 5, self.functions), repeated(self.code, 6, self.functions)
        right = total = 0
        ratios: list[float] = []
        pairs: list[Judged] = []
        for i in range(o.pairs):
            if self.over_time():
                break
            order = [("fast", fast), ("slow", slow)] if i % 2 == 0 else [("slow", slow), ("fast", fast)]
            got: dict[str, Judged] = {}
            try:
                for name, text in order:
                    got[name] = judge_once(self.users[(2 * i + len(got)) % len(self.users)], o.problem, text,
                                           "submit", SUBMIT_POLL_S, o.max_wait_s)  # fmt: skip
            except BenchError as exc:
                self.out(f"    pair {i}: {exc}")
                continue
            pairs.extend(got.values())
            a, b = got["fast"].speedup, got["slow"].speedup
            total += 1
            if a is None or b is None:
                self.out(f"    pair {i}: no speedup ({got['fast'].verdict}, {got['slow'].verdict})")
                continue
            right += a > b
            ratios.append(a / b)
        self.figures["order_right"] = right
        self.out(f"ordering: {total} pairs of the same solution x5 and x6 per call (true ratio 1.20):")
        if ratios:
            self.out(f"  measured ratio of speedups: median {statistics.median(ratios):.3f}, "
                     f"range {min(ratios):.3f}-{max(ratios):.3f}")  # fmt: skip
        self.out(verdict_line("order_right", right, f"pairs ordered right (of {total})"))
        self.honesty("order", pairs)
        self.keep("order", pairs)

    def sweep(self) -> None:
        points: list[tuple[int, float]] = []
        for clients in (1, 2, 4, 8):
            time.sleep(5)
            judged, errors, span = self.clients(clients, "run", 24, PAGE)
            points.append((clients, 60.0 * len(judged) / span))
            self.out(f"  sweep: {clients} client(s): {points[-1][1]:.1f} judgings/min ({len(errors)} lost)")
        self.report["sweep"] = points

"""The device check's command line and its run: python -m sandbox.tools.device_check."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
from pathlib import Path

from sandbox.tools import ROOT, device_check
from sandbox.tools.device_check.backends import (
    diagnose_cuda,
    judge_once,
    lift_address_limit,
    make_backend,
    make_docker_backend,
    on_cuda,
    pass_environment,
    runner_hello,
)
from sandbox.tools.device_check.probes import environment, order_check, timing_check
from sandbox.tools.device_check.report import Report, failures, run_line, summary_row, table
from sandbox.tools.device_check.selection import gpu_problems, item_for_file, needs_triton, select

# The first paragraph of the package's docstring (which says what the check does).
DESCRIPTION = (device_check.__doc__ or "").split("\n\n")[0]
SAFETY_S = 20.0  # kept free at the end of --max-minutes for the summary
DEFAULT_ESTIMATE_S = 60.0  # a judging's expected length before one of its problem has run


# ---------------------------------------------------------------- main
def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="device_check", description=DESCRIPTION)
    p.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="judgings of each AC file and reference (default 5; 1 in a dry run)",
    )
    p.add_argument("--max-minutes", type=float, default=8.0, help="hard bound on the whole run")
    p.add_argument(
        "--cpu-dry-run",
        action="store_true",
        help="judge on the CPU even where CUDA is present (automatic without CUDA)",
    )
    p.add_argument(
        "--problems",
        default="",
        help="comma-separated problem numbers (default: every GPU problem)",
    )
    p.add_argument(
        "--files",
        nargs="*",
        default=[],
        help="judge exactly these files (solution.py or solutions/<VERDICT>/*.py)",
    )
    p.add_argument(
        "--others",
        type=int,
        default=1,
        help="WA and TLE files judged once per problem and verdict (default 1)",
    )
    p.add_argument("--timing-samples", type=int, default=30)
    p.add_argument("--no-timing", action="store_true", help="skip the timing sanity check")
    p.add_argument("--python", default=sys.executable, help="the runner's interpreter")
    p.add_argument(
        "--address-limit",
        choices=("auto", "keep", "lift"),
        default="auto",
        help="the local backend's RLIMIT_AS for the runners (see the docstring)",
    )
    p.add_argument(
        "--out",
        default=os.environ.get("OUT", ""),
        help="folder for device_check.txt and device_check.json (default $OUT)",
    )
    p.add_argument("--order-trials", type=int, default=20,
                   help="trials of the ordering of two solutions 10 %% apart (0: none)")
    p.add_argument("--docker", action="store_true",
                   help="judge through Docker GPU sandboxes (the gpu-worker's path)")
    p.add_argument("--gpu-image", default="tensor-judge-sandbox:cuda",
                   help="--docker: the GPU sandbox image")
    p.add_argument("--gpu-ids", default="0", help="--docker: GPUs the sandboxes may use")
    p.add_argument("--plan", action="store_true",
                   help="print and write what would run, judge nothing")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    opts = parse(argv)
    t_start = time.monotonic()
    deadline = t_start + opts.max_minutes * 60 - SAFETY_S
    report = Report(Path(opts.out) / "device_check.txt" if opts.out else None)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )

    if opts.cpu_dry_run:
        os.environ["CUDA_VISIBLE_DEVICES"] = ""  # this process too, before torch is imported
    import torch

    cuda = torch.cuda.is_available() and not opts.cpu_dry_run
    if not cuda and os.getpriority(os.PRIO_PROCESS, 0) < 10:
        with contextlib.suppress(OSError):  # a shared CPU machine: stay in the background
            os.setpriority(os.PRIO_PROCESS, 0, 10)
    repeat = opts.repeat if opts.repeat is not None else (5 if cuda else 1)
    report(
        f"device_check {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  mode "
        f"{'GPU' if cuda else 'CPU dry run'}  repeat {repeat}  bound {opts.max_minutes} min"
    )

    environment(report, cuda)
    if not opts.no_timing:
        timing_check(report, cuda, opts.timing_samples)

    if opts.files:
        items = [item_for_file(Path(f)) for f in opts.files]
    else:
        numbers = {int(n) for n in opts.problems.split(",") if n.strip()} or None
        items = select(gpu_problems(ROOT, numbers), opts.others)

    from sandbox.bench import device_report

    json_path = Path(opts.out) / "device_check.json" if opts.out else None
    gpu_ids = [g.strip() for g in opts.gpu_ids.split(",") if g.strip()]
    plan = device_report.docker_plan(opts.gpu_image, gpu_ids, cuda) if opts.docker else {
        "backend": "local", "python": opts.python}
    if opts.plan:
        report("")
        report(f"== Plan (nothing judged): backend {plan}")
        if opts.docker:
            make_docker_backend(opts.gpu_image, gpu_ids)  # built, no daemon contacted
        for item in items:
            report(f"would judge {item.label} (expect {item.expected}, x{repeat if item.repeat else 1})")
        if json_path is not None:
            device_report.write_json(json_path, {"mode": "plan", "plan": plan, "files": [
                {"file": i.label, "expected": i.expected} for i in items]})
        return 0

    report("")
    report(f"== 3. Runner probe ({plan['backend']} backend, python {opts.python})")
    if opts.docker:
        backend = make_docker_backend(opts.gpu_image, gpu_ids)
    else:
        backend = make_backend(opts.python, cpu_only=not cuda)
    lift_address_limit(opts.address_limit == "lift")
    if cuda and not opts.docker:
        # A fresh runner per sandbox, as each Docker container is (no fork server: a runner
        # forked from a process that imported torch is not how a GPU sandbox starts).
        os.environ["JUDGE_LOCAL_FORK"] = "0"
        passed = pass_environment()
        if passed:
            report(f"passing {', '.join(passed)} to the runners (as the GPU image's ENV would)")
    hello = runner_hello(report, backend, "0" if cuda else None)
    if cuda and not on_cuda(hello) and opts.address_limit == "auto":
        report(
            "WARN the runner saw no CUDA or died under the local backend's RLIMIT_AS "
            "(memory + 1 GiB; a Docker sandbox has none); lifting RLIMIT_AS for this check"
        )
        lift_address_limit(True)
        hello = runner_hello(report, backend, "0", " (no RLIMIT_AS)")
    if cuda and not on_cuda(hello):
        report("FAIL the runner sees no CUDA: the GPU problems will run on its CPU")
        report(f"     a runner-like python -I: {diagnose_cuda(opts.python)}")

    report("")
    report(
        f"== 4. Judgings (Submit, local backend): {len(items)} files, AC and references "
        f"x{repeat}, others x1"
    )
    if hello and hello.get("triton") is None:
        for item in items:
            if needs_triton(item.problem):
                item.skipped = "triton not importable by the runner's python"
        skipped = sorted({i.problem.name for i in items if i.skipped})
        if skipped:
            report(
                f"SKIP {', '.join(skipped)}: triton is not importable by {opts.python} "
                "(the engine would answer IE; --python names one that has it)"
            )
    todo = [i for i in items if not i.skipped]
    estimates: dict[Path, float] = {}
    all_fails: list[str] = []
    stopped = ""
    passes = max(1, repeat)
    total = sum(passes if i.repeat else 1 for i in todo)
    done = 0
    for pass_no in range(1, passes + 1):
        for item in todo:
            if pass_no > 1 and not item.repeat:
                continue
            left = deadline - time.monotonic()
            estimate = estimates.get(item.problem, DEFAULT_ESTIMATE_S)
            if left < min(estimate, 20.0) or (pass_no > 1 and left < estimate):
                stopped = (
                    f"time bound: {left:.0f} s left, a judging of "
                    f"{item.problem.name} takes ~{estimate:.0f} s"
                )
                break
            done += 1
            report(
                f"{report.stamp()} ({done}/{total}) {item.label} run {len(item.runs) + 1}/"
                f"{passes if item.repeat else 1} ..."
            )
            run = judge_once(item, backend, cuda, left)
            item.runs.append(run)
            estimates[item.problem] = max(estimates.get(item.problem, 0.0), run["seconds"])
            report(f"    {run_line(item, run)}")
            why = failures(item, run, cuda)
            if why:
                line = f"FAIL {item.label} run {len(item.runs)}: " + "; ".join(why)
                all_fails.append(line)
                report(line)
            if run["verdict"] == "TIMEOUT":
                stopped = "the hard time bound was reached during a judging"
                break
        if stopped:
            break
    if stopped:
        report(f"STOPPED early ({stopped}); the summary covers what ran")

    report("")
    report(f"== 5. Summary ({done} judgings in {time.monotonic() - t_start:.0f} s)")
    for line in table([summary_row(i) for i in items]):
        report(line)
    report("")
    if all_fails:
        report(f"{len(all_fails)} FAIL line(s):")
        for line in all_fails:
            report(line)
    else:
        report("no FAIL lines" if done else "FAIL nothing was judged")

    rows = [row for i in items for row in device_report.shape_rows(i.label, i.runs)]
    report("")
    report("== 6. Per shape (medians over the repeats; CV of the speedup)")
    for line in device_report.shape_lines(rows) if rows else ["no benchmark shapes were timed"]:
        report(line)
    found = order_check(report, cuda, opts.order_trials)
    if json_path is not None:
        device_report.write_json(json_path, {
            "mode": "GPU" if cuda else "CPU dry run", "plan": plan, "repeat": repeat,
            "files": [{"file": i.label, "expected": i.expected, "skipped": i.skipped,
                       "runs": i.runs, "summary": summary_row(i)} for i in items],
            "shapes": rows, "ordering": found, "fails": all_fails, "stopped": stopped,
        })
        report(f"JSON report: {json_path}")
    report(f"done in {time.monotonic() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)

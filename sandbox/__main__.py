"""Offline command line: ``python -m sandbox judge problems/<folder> FILE``
(``--mode scratch --script F``: run F's lines after FILE, no test).

Judges a file against a problem package on this machine, by default with the public tests
(``--mode run``) and the local backend, which is NOT a security boundary: judge only code
you trust (your own). Exit status 0 whenever the judging completed, whatever the verdict;
1 when the judge itself failed (a broken package, an internal error).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sandbox.grader.contracts import Mode, Verdict, scratch_refusal
from sandbox.grader.package import PackageError, load_package


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox")
    commands = parser.add_subparsers(dest="command", required=True)
    judge_cmd = commands.add_parser("judge", help="judge FILE against the package in PROBLEM_DIR")
    judge_cmd.add_argument("problem_dir", type=Path)
    judge_cmd.add_argument("file", type=Path)
    judge_cmd.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.RUN.value)
    judge_cmd.add_argument("--script", type=Path, default=None,
                           help="with --mode scratch: the lines to run after FILE")
    judge_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    judge_cmd.add_argument("--backend", default="local")
    judge_cmd.add_argument(
        "--kernels-root", type=Path, default=None,
        help="folder holding kernels/, the baselines' source (default: this repository's)",
    )
    args = parser.parse_args(argv)

    from sandbox.grader.entry import judge
    from sandbox.grader.feedback import format_result, result_for_student
    from sandbox.host.backends import get_backend

    if (args.mode == Mode.SCRATCH) != (args.script is not None):
        print("error: --mode scratch goes with --script F (the lines to run after FILE)",
              file=sys.stderr)
        return 1
    try:
        package = load_package(args.problem_dir)
        source = args.file.read_text(encoding="utf-8", errors="replace")
        script = args.script.read_text(encoding="utf-8", errors="replace") if args.script else ""
    except (PackageError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    refused = scratch_refusal(package.harness)
    if args.mode == Mode.SCRATCH and refused:
        print(f"error: {refused}", file=sys.stderr)
        return 1
    try:
        backend = get_backend(args.backend)
    except (ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    result = result_for_student(
        judge(package, source, mode=Mode(args.mode), backend=backend,
              kernels_root=args.kernels_root, script=script),
        package.feedback_hidden,
    )
    if args.json:
        print(json.dumps(result.to_json()))
    elif result.output is not None:  # a scratch run
        from sandbox.grader.kinds.scratch import format_scratch

        print(format_scratch(result))
    else:
        print(format_result(result))
    return 1 if result.verdict == Verdict.IE else 0


if __name__ == "__main__":
    sys.exit(main())

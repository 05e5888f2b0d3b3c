"""Measure what starting a sandbox costs (not a test: figures for the issue and the docs).

    scripts/bench_sandbox_start [-n 5] [--image tensor-judge-sandbox:cpu]

Prints medians of: a plain `docker run --rm IMAGE true`; a hardened container (Docker backend)
from create to its first frame with a trivial command; the same with the real runner (whose
first frame, "hello", comes after importing torch); `import torch` timed inside; and the
runner's hello taken from a warm pool (sandbox/host/backends/docker_pool.py).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from sandbox.host.backends.base import SandboxSpec, get_backend
from sandbox.runner.framing import decode_frame
from sandbox.tools import CATALOG

HELLO = (
    "import struct,sys\n"
    "p=struct.pack('>I',2)+b'{}'\n"
    "sys.stdout.buffer.write(b'TJF1'+struct.pack('>I',len(p))+p);sys.stdout.buffer.flush()\n"
    "sys.stdin.buffer.read()\n"
)
IMPORT_TORCH = (
    "import struct,sys,time,json\n"
    "t=time.perf_counter();import torch;t=time.perf_counter()-t\n"
    "j=json.dumps({'s':t}).encode();p=struct.pack('>I',len(j))+j\n"
    "sys.stdout.buffer.write(b'TJF1'+struct.pack('>I',len(p))+p);sys.stdout.buffer.flush()\n"
)


def first_frame_s(image: str, command: list[str] | None) -> tuple[float, dict[str, object]]:
    backend = get_backend("docker", image=image, command=command)
    t0 = time.perf_counter()
    with backend.start(SandboxSpec(labels={"tensor-judge.bench": "1"})) as box:
        message, _ = decode_frame(box.recv(120))
        return time.perf_counter() - t0, message


def pool_hit_s(image: str, n: int) -> list[float]:
    """Runner hello from a warm pool (pool_size=1), waiting for each refill to import torch."""
    backend = get_backend("docker", image=image, pool_size=1)
    spec = SandboxSpec(labels={"tensor-judge.bench": "1"})
    times: list[float] = []
    try:
        with backend.start(spec) as box:  # the miss that teaches the pool the limits
            box.recv(120)
        for _ in range(n):
            time.sleep(8)  # refill + torch import in the pooled sandbox
            t0 = time.perf_counter()
            with backend.start(spec) as box:
                box.recv(120)
                times.append(time.perf_counter() - t0)
    finally:
        backend.close()  # type: ignore[attr-defined]
    return times


def judging_s(image: str, n: int, pooled: bool) -> list[float]:
    """Whole judgings of problem 48's public tests (Run) of a correct file, from the grader's
    first call to its verdict: in fresh sandboxes, or each in one the warm pool started ahead."""
    from sandbox.grader.contracts import Mode, Verdict
    from sandbox.grader.entry import judge
    from sandbox.grader.package import load_package

    package = load_package(CATALOG / "048-embedding-tied-head-padding")
    source = (package.path / "solutions" / "AC" / "gather.py").read_text()
    backend = get_backend("docker", image=image, pool_size=1 if pooled else 0)
    labels = {"tensor-judge.bench": "1"}
    times: list[float] = []
    try:
        if pooled:  # the miss that teaches the pool the limits
            judge(package, source, mode=Mode.RUN, backend=backend, labels=labels)
        for _ in range(n):
            deadline = time.monotonic() + 60
            while pooled and backend.pool.ready_count() < 1 and time.monotonic() < deadline:  # type: ignore[attr-defined]
                time.sleep(0.2)
            t0 = time.perf_counter()
            result = judge(package, source, mode=Mode.RUN, backend=backend, labels=labels)
            times.append(time.perf_counter() - t0)
            assert result.verdict == Verdict.AC, result.message
            assert result.environment.get("sandbox") == ("pooled" if pooled else "fresh")
    finally:
        backend.close()  # type: ignore[attr-defined]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=5, help="starts of each kind (default 5)")
    parser.add_argument("--image", default="tensor-judge-sandbox:cpu")
    opts = parser.parse_args()
    rows: dict[str, list[float]] = {"docker run --rm IMAGE true": [], "hardened start -> first frame": [],
                                    "hardened start -> runner hello (torch imported)": [],
                                    "import torch inside": []}
    for _ in range(opts.n):
        t0 = time.perf_counter()
        subprocess.run(["docker", "run", "--rm", "--network", "none", opts.image, "true"], check=True)
        rows["docker run --rm IMAGE true"].append(time.perf_counter() - t0)
        rows["hardened start -> first frame"].append(first_frame_s(opts.image, ["python3", "-I", "-c", HELLO])[0])
        rows["hardened start -> runner hello (torch imported)"].append(first_frame_s(opts.image, None)[0])
        _, msg = first_frame_s(opts.image, ["python3", "-I", "-c", IMPORT_TORCH])
        rows["import torch inside"].append(float(msg["s"]))  # type: ignore[arg-type]
    rows["warm pool hit -> runner hello"] = pool_hit_s(opts.image, opts.n)
    rows["judging (problem 48, Run), fresh sandbox"] = judging_s(opts.image, opts.n, pooled=False)
    rows["judging (problem 48, Run), warm pool"] = judging_s(opts.image, opts.n, pooled=True)
    for name, values in rows.items():
        print(f"{name:50s} median {statistics.median(values):.3f} s  (min {min(values):.3f}, n={len(values)})")
    fresh = statistics.median(rows["judging (problem 48, Run), fresh sandbox"])
    warm = statistics.median(rows["judging (problem 48, Run), warm pool"])
    print(f"a judging in a warm sandbox takes {warm / fresh:.2f} of the time of one in a fresh one")


if __name__ == "__main__":
    main()

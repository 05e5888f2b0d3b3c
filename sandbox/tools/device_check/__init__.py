"""Device check: one prepared run on a lent GPU machine (no Docker, no network).

    python3 scripts/device_check                    # on the GPU machine (system python3)
    scripts/device_check --cpu-dry-run --repeat 1   # here, to prove the script itself works

Needs only the standard library, torch, numpy and (for the Triton problems) triton: no Django,
no Docker SDK, no venv. It

1. prints the environment (python, torch, triton, GPU, driver, capability) and a CUDA timing
   sanity check of the runner's own method (sandbox/runner/server.py ``_time_cuda``: events after an
   L2 flush) against bare CUDA events and the host clock, on a large copy, a matmul and a
   launch-bound kernel: medians, min-max, CV;
2. judges, with the local backend and ``sandbox.grader.entry.judge`` in Submit mode, every
   solutions/AC/*.py and the reference of the GPU problems (problem.toml ``device = "gpu"`` or
   ``"any"``, or ``requires = ["triton"]``) ``--repeat`` times, and a few WA/TLE files once,
   with gpu id "0" for ``device = "gpu"`` problems as the site's engine.gpu_for gives it; per
   file: verdicts, speedup median, min-max, CV %, trust/rule and the device the benchmark ran on;
   then a summary table and the FAIL lines;
3. stays inside ``--max-minutes`` (default 8) whatever happens: work is done pass by pass
   (every file once, then the repeats), a judging that would not fit is skipped, one that
   overruns is killed;
4. writes the report to $OUT/device_check.txt too when $OUT is set (line by line, so a killed
   run still leaves what it printed);
5. prints per benchmark shape the time, % of the speed of light, speedup and the speedup's CV
   over the repeats, and whether two solutions 10 % apart (copies of N and 1.1 N elements, timed
   as sandbox/bench/sampling.py times a short kernel) come out in the right order over
   ``--order-trials`` trials; everything goes to one JSON report, $OUT/device_check.json.

``--docker`` judges through the Docker backend instead (a GPU sandbox of ``--gpu-image`` per
judging of a GPU problem, the per-GPU lock: the gpu-worker service's path), for a host with
Docker and the NVIDIA container toolkit; ``--plan`` prints and writes what would run (files,
backend, GPU ids) without judging, which is how its CPU dry run is tested.

It exits 0 when the report was made, even when judgings failed (look for lines starting with
FAIL). Without CUDA (or with --cpu-dry-run) it judges the same files on the CPU (the Triton
solutions choose Triton's interpreter themselves when no GPU is visible).

The local backend gives a runner with a GPU no RLIMIT_AS (sandbox/host/backends/local.py: CUDA
reserves far more address space than it uses) but a resident-memory watch; a CPU runner keeps
it. ``--address-limit auto`` (default) still starts one runner first and, when it reports no
CUDA although this process has it, lifts that limit for the rest of the check and says so
(``keep``: never, ``lift``: always).
"""


from sandbox.tools.device_check.report import Report, failures, run_line, summary_row, table
from sandbox.tools.device_check.selection import Item, gpu_problems, item_for_file, select

__all__ = [
    "Item", "Report", "failures", "gpu_problems", "item_for_file", "run_line", "select",
    "summary_row", "table",
]

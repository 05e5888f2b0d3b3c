"""The judge's settings: sandboxes, GPUs, authors' code confinement, packages, worker hosts."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from judge_site.config.queues import CELERY_TASK_TIME_LIMIT
from judge_site.env import (
    BASE_DIR,
    debug_mode,
    envbool,
    envchoice,
    envfloat,
    envint,
    envlist,
    envstr,
    envtable,
)

JUDGE_PROBLEMS_DIR = Path(envstr("JUDGE_PROBLEMS_DIR", str(BASE_DIR / "problems")))
# "docker" in production; "local" runs submissions in a plain subprocess, which is NOT a
# security boundary and is refused when DEBUG is off unless JUDGE_ALLOW_LOCAL_BACKEND=true.
JUDGE_BACKEND = envstr("JUDGE_BACKEND", "local" if debug_mode() else "docker")
JUDGE_ALLOW_LOCAL_BACKEND = envbool("JUDGE_ALLOW_LOCAL_BACKEND", "False")
if JUDGE_BACKEND == "local" and not debug_mode() and not JUDGE_ALLOW_LOCAL_BACKEND:
    raise ImproperlyConfigured(
        "JUDGE_BACKEND=local runs untrusted code without isolation and is refused when DEBUG "
        "is off: use JUDGE_BACKEND=docker, or set JUDGE_ALLOW_LOCAL_BACKEND=true knowingly."
    )
# Where authors' code (a package's tests.py and reference, a practice folder's test.py) runs:
# in a confined grader process of its own (sandbox/grader/process.py: with docker, a container
# of JUDGE_GRADER_IMAGE without network, Docker socket or credentials), never in the worker.
# "auto": confined with the docker backend, in-process with the local one (development, which
# is no security boundary anyway); "always" / "never" force it.
JUDGE_CONFINE_AUTHORS = envchoice("JUDGE_CONFINE_AUTHORS", "auto", ("auto", "always", "never"))

# Staff: uploaded packages live here, one folder per version (back it up with the database).
JUDGE_PACKAGES_DIR = Path(envstr("JUDGE_PACKAGES_DIR", str(BASE_DIR / "media" / "packages")))
# Rejudges and package checks run on this queue, consumed by a worker of its own (compose:
# rejudge-worker), so they never wait in front of a student's judging on cpu/gpu.
JUDGE_REJUDGE_QUEUE = envstr("JUDGE_REJUDGE_QUEUE", "rejudge")
JUDGE_CHECK_QUEUE = envstr("JUDGE_CHECK_QUEUE", JUDGE_REJUDGE_QUEUE)
JUDGE_PACKAGE_CACHE_DIR = Path(
    envstr("JUDGE_PACKAGE_CACHE_DIR", str(JUDGE_PACKAGES_DIR / ".cache"))
)

# The plain ones: each NAME read by its reader, with its default.
globals().update(envtable({
    "JUDGE_SANDBOX_IMAGE": (envstr, "tensor-judge-sandbox:cpu"),
    # requirement=image, for problem.toml `requires`
    "JUDGE_SANDBOX_IMAGES": (envlist, "triton=tensor-judge-sandbox:triton"),
    "JUDGE_GPU_IDS": (envlist, ""),
    # Whether workers consume the "gpu" queue (compose: --profile gpu). Without them a GPU
    # problem whose kernels are Triton is judged by the CPU workers in Triton's interpreter, and
    # any other GPU problem is refused at submit time (routing.judging_route); its page says so.
    "JUDGE_GPU_ENABLED": (envbool, "false"),
    # Sandboxes each worker process keeps started ahead (docker, CPU problems): a judging then
    # skips the container start and the runner's torch import. 0 = none.
    "JUDGE_SANDBOX_POOL_SIZE": (envint, "0"),
    # CPUs of each worker process's sandboxes (their timed phases never share a core): "auto"
    # (one CPU each, in turn), "0;1" / "0-1;2-3" (one set per process, in turn), "" (no pinning).
    "JUDGE_SANDBOX_CPUSETS": (envstr, ""),
    # Where the host-wide timing locks live (one file per CPU set): shared by every worker of a
    # host.
    "JUDGE_LOCK_DIR": (envstr, ""),
    # Where the host's cgroup file system is seen (a sandbox's CPU time, read around the
    # baseline's timed calls: sandbox/host/backends/cgroup_cpu.py); "" = not read (the quiet cap
    # then always applies where the baseline waited). Compose mounts the host's read-only at
    # /host/sys/fs/cgroup.
    "JUDGE_CGROUP_ROOT": (envstr, "/sys/fs/cgroup"),
    # The name of this machine in each result's environment.host (default: its host name).
    "JUDGE_HOST_NAME": (envstr, ""),
    # Worker hosts (scripts/up --join-line): the password of the Postgres role they log in as
    # (judge_site/core/worker_role.py; the web container applies it at start). Empty: no LOGIN.
    "JUDGE_WORKER_DB_PASSWORD": (envstr, ""),
    # A sandbox older than this is an orphan of a worker that died mid-judging: none lives
    # longer than a warm pool's idle time (5 minutes) plus the task's hard time limit; a
    # minute's margin. Workers remove such sandboxes from their Docker engine.
    "JUDGE_ORPHAN_AGE_S": (envint, str(CELERY_TASK_TIME_LIMIT + 360)),
    # The image of the confined grader: the worker's own (torch and the grader's code); "" =
    # the image of the container this worker runs in, asked from the Docker engine.
    "JUDGE_GRADER_IMAGE": (envstr, ""),
    # A host command (manage.py judge, check_problems, import_practice) confines an untrusted
    # package's authors' code in the worker image's grader; the repository's own problems/ opt
    # out while this is true (judge_site/worker/host_confinement.py).
    "JUDGE_TRUST_CATALOG": (envbool, "True"),
    "JUDGE_GRADER_MEMORY_MIB": (envint, "4096"),
    "JUDGE_MAX_CODE_BYTES": (envint, "65536"),
    "JUDGE_RATE_LIMIT_PER_MINUTE": (envint, "10"),
    # Write calls of the JSON API per user per minute (courses, exams; submissions have the
    # limit above), 0 = no limit; judge_site/core/api.py.
    "JUDGE_API_WRITES_PER_MINUTE": (envint, "60"),
    # Judgings waiting or running at once: per user, and per client address across accounts
    # (a classroom behind one NAT address shares the second; 0 = no cap).
    "JUDGE_MAX_QUEUED_PER_USER": (envint, "8"),
    "JUDGE_MAX_QUEUED_PER_ADDRESS": (envint, "64"),
    "JUDGE_BENCH_TARGET_REL_ERROR": (envfloat, "0.05"),
    # Rejudges and checks of problems that can run on a GPU, while a GPU worker is alive:
    # consumed by GPU workers only (compose gpu-worker), never re-timed on a CPU
    # (submissions/routing.py).
    "JUDGE_GPU_REJUDGE_QUEUE": (envstr, "gpu-rejudge"),
    # /metrics answers staff holding staff.view_metrics (session or API token) and
    # "Authorization: Bearer <this>" when set.
    "JUDGE_METRICS_TOKEN": (envstr, ""),
    # Worker hosts without a shared disk (judge_site/worker/package_cache.py). On a worker
    # host: the main host's web as this worker reaches it ("http://10.0.0.1:8000"); problem
    # versions are then fetched by content hash and cached here, under a size cap (least
    # recently used out). Unset: packages are read from this host's own folders.
    "JUDGE_PACKAGE_SOURCE": (envstr, ""),
    "JUDGE_PACKAGE_CACHE_MIB": (envint, "1024"),
    # The secret worker hosts present to fetch packages (on the web and on every worker host);
    # empty: /internal/packages/ is off.
    "JUDGE_WORKER_TOKEN": (envstr, ""),
}))

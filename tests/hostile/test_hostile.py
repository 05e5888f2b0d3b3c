"""Hostile submissions for problem 48, judged for real: grader + Docker backend.

Every file under submissions/ is a student file that attacks the judge one way; EXPECT says
which verdicts it may get (never AC unless it really is correct). For each judging we also
check that it ended within the limits plus a margin, that its container is gone, and that this
process (the worker's stand-in) is still healthy. A copy of the package with small limits keeps
the suite short.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import machine_load
import pytest

from sandbox.grader.contracts import JudgeResult, Limits, Mode, Verdict
from sandbox.grader.feedback import result_for_student
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = Path(__file__).with_name("submissions")
PROBLEM = ROOT / "problems" / "048-embedding-tied-head-padding"
LIMITS = Limits(time_s=2.0, memory_mib=512, output_kib=64, pids=128, tmpfs_mib=32)
# Start-up (container + torch import on a busy 2-core machine) plus every public test at its
# limit would be far more; a judging that ends in a fatal fault must end well before this.
MAX_JUDGING_S = 40.0
# A judging that ends at its first test's time limit (TLE): start-up + one limit + a margin.
MAX_TLE_JUDGING_S = 25.0
TEST_LABEL = "tensor-judge.test"


@dataclass(frozen=True)
class Expect:
    verdicts: frozenset[Verdict]
    mode: Mode = Mode.RUN
    says: str = ""  # a substring the first non-AC test's message (or the judging's) must hold
    honest_benchmark: bool = False  # if AC: a benchmark that is unverified or shows no gain
    hides: str = ""  # a substring that must appear nowhere in what the student is shown
    max_speedup: float = 0.0  # if set and AC: no verified speedup above this


def one(*verdicts: Verdict, **kw: Any) -> Expect:
    return Expect(frozenset(verdicts), **kw)


EXPECT: dict[str, Expect] = {
    "correct_control": one(Verdict.AC),
    "infinite_loop": one(Verdict.TLE),
    "sleep_forever": one(Verdict.TLE),
    "fork_bomb": one(Verdict.TLE, Verdict.RE),
    "spin_at_import": one(Verdict.TLE, says="import"),
    "fork_at_import": one(Verdict.RE, says="process(es) running after the import"),
    "thread_bomb": one(Verdict.TLE, Verdict.RE, Verdict.MLE),
    "memory_bomb": one(Verdict.MLE),
    "disk_fill": one(Verdict.RE, says="No space left on device"),
    "big_output": one(Verdict.OLE),
    "network": one(Verdict.RE, Verdict.WA, says="connected=0"),
    "netinfo": one(Verdict.RE, Verdict.WA, says="ifaces=['lo'] names=['lo'] routes=0"),
    "find_tests": one(Verdict.RE, Verdict.WA, says="found=[]"),
    # HOSTNAME comes from Docker, LC_CTYPE from Python's locale coercion (PEP 538),
    # OMP_NUM_THREADS and MALLOC_MMAP_THRESHOLD_ from the backend (torch's thread pool sized
    # to the CPU quota; big buffers mmapped so the heap does not fragment).
    "env_secrets": one(
        Verdict.RE,
        Verdict.WA,
        says="env=['HOME', 'HOSTNAME', 'LC_CTYPE', 'MALLOC_MMAP_THRESHOLD_', 'OMP_NUM_THREADS', "
        "'PATH', 'TMPDIR']",
    ),
    "forged_frame": one(Verdict.RE, Verdict.WA),
    "monkeypatch": one(Verdict.WA),
    "cache_outputs": one(Verdict.WA, mode=Mode.SUBMIT),
    "modify_inputs": one(Verdict.WA),
    "lazy_tensor": one(Verdict.WA),
    "exit_early": one(Verdict.RE),
    "exit_at_import": one(Verdict.CE, Verdict.RE),
    "kill_parent": one(Verdict.RE, says="ended during"),
    # Processes left running after a call are refused (RE) and stopped with the sandbox.
    "background_process": one(Verdict.RE, says="process(es) running"),
    "syntax_error": one(Verdict.CE),
    "fake_clock": one(Verdict.AC, mode=Mode.SUBMIT, honest_benchmark=True),
    "bench_garbage": one(Verdict.WA, mode=Mode.SUBMIT),
    # Its answers are correct; its thread races the runner's own blocking read for the
    # grader's requests: a stolen one ends it (TLE or RE), and when the thread never wins a
    # race (a busy host may not schedule it in time) the correct answers earn their AC.
    "stdin_thief": one(Verdict.TLE, Verdict.RE, Verdict.AC),
    "close_channel": one(Verdict.RE),
    "giant_frame": one(Verdict.OLE, Verdict.RE),
    "escalate": one(Verdict.RE, Verdict.WA, says="escalated=[]"),
    # Results computed while the inputs are prepared: once a 300x verified speedup; now one
    # argument is drawn only by the time request, so the kept result is wrong (or unused).
    "precompute_prepare": one(Verdict.WA, Verdict.AC, mode=Mode.SUBMIT, honest_benchmark=True),
    # An empty tensor returned at once, filled by a thread the output fetch waits for: once a
    # 4x verified speedup; the time reply's digest of the output now gives it away.
    "deferred_work": one(Verdict.WA, mode=Mode.SUBMIT),
    "malformed_load_reply": one(Verdict.CE, Verdict.RE),
    "malformed_observation": one(Verdict.RE),
    "late_hook": one(Verdict.AC, mode=Mode.SUBMIT, honest_benchmark=True),
    "exfiltrate_hidden": one(Verdict.RE, mode=Mode.SUBMIT, hides="LEAK_"),
    # The product is kept by the identity of the early hidden states, which the late draw
    # replaces: unused (AC), or, when the new tensor reuses the freed one's address, returned
    # for the wrong inputs and caught by the re-verification of the timed output (WA).
    "precompute_mask_free": one(Verdict.AC, Verdict.WA, mode=Mode.SUBMIT, honest_benchmark=True),
    "slow_baseline": one(Verdict.AC, mode=Mode.SUBMIT, max_speedup=1.25),
    # CPU burnt between its own calls slows the baseline's sandbox on the shared CPUs: the
    # baseline's figure is capped at its times with this sandbox stopped (test_spin_pinned.py
    # judges these on one CPU, where the gain would be 2x).
    "spin_thread": one(Verdict.AC, mode=Mode.SUBMIT, max_speedup=1.3),
    # A child forked at import, spinning beside the baseline: refused at its import now.
    "spin_child": one(Verdict.RE, mode=Mode.SUBMIT, says="process(es) running"),
    # Nothing of a solution within the student's reach (the baseline runs in a sandbox of its
    # own, the image holds no kernels package): each would use what it found (a free AC).
    "import_kernels": one(Verdict.RE, mode=Mode.SUBMIT, says="kernels=[]"),
    "walk_for_functions": one(Verdict.RE, mode=Mode.SUBMIT, says="found=[]"),
    "search_interpreter": one(Verdict.RE, mode=Mode.SUBMIT, says="found=[]"),
    "proc_snoop": one(Verdict.RE, mode=Mode.SUBMIT, says="leaks=[]"),
    "ptrace_attach": one(Verdict.RE, mode=Mode.SUBMIT, says="leaks=[]"),
    "snoop_during_benchmark": one(Verdict.WA, mode=Mode.SUBMIT),
    "overlapping_tensors": one(Verdict.RE),
    "json_bomb": one(Verdict.OLE, Verdict.RE),
    "spoofed_exception": one(Verdict.WA, mode=Mode.SUBMIT, says="IndexError"),
    "segfault": one(Verdict.RE, says="crashed during"),
    "exotic_tensor": one(Verdict.WA, Verdict.RE),
    "bignum": one(Verdict.WA, Verdict.RE),
    "stderr_flood": one(Verdict.OLE, Verdict.RE),
    "signal_shield": one(Verdict.TLE),
}
# What one judging may add to the worker's peak memory (its reference run, one capped frame).
MAX_WORKER_GROWTH_MIB = 1024
# A correct gather racing the baseline gather cannot honestly be this much faster.
MAX_HONEST_SPEEDUP = 3.0
# Holes found by this suite and not yet closed where they live: strict xfail, so the day the
# fix lands this turns into a failure that asks for the mark to be removed.
# (fake_clock was one until sandbox/bench.py checked the minimum gap, commit 4667ad0.)
# (precompute_mask_free was one until a benchmark spec could name its late-drawn argument.)
KNOWN_HOLES: dict[str, str] = {}


def _params() -> list[Any]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[name]))
        if name in KNOWN_HOLES
        else name
        for name in sorted(EXPECT)
    ]

# Names of variables a worker really has; none may be visible inside the sandbox.
CANARIES = {
    "SECRET_KEY": "canary-secret-key",
    "DATABASE_URL": "postgres://postgres:canary-password@127.0.0.1:5432/postgres",
    "REDIS_URL": "redis://:canary-password@127.0.0.1:6379/0",
    "JUDGE_SECRET_SEED": "canary-seed",
}


@pytest.fixture(scope="module")
def package() -> ProblemPackage:
    package = load_package(PROBLEM)
    bench = package.benchmark
    if bench is not None:  # a short benchmark: the attacks on it are caught in any length
        bench = dataclasses.replace(bench, max_time_s=2.0)
    return dataclasses.replace(package, limits=LIMITS, benchmark=bench)


@pytest.fixture(scope="module")
def backend(docker_client: Any, sandbox_image: str) -> Backend:
    return get_backend("docker", image=sandbox_image)


class Listener:
    """A TCP listener on the host's loopback that records every connection and byte."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.received = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(1)
                try:
                    self.received += conn.recv(65536)
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@pytest.fixture()
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


def host_processes_with(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(pid))
    return found


def submission_source(name: str) -> str:
    """The file's text, with any ``# @include NAME`` line replaced by submissions/NAME.py (a
    student file is one file; this keeps the suite from carrying copies of the control)."""
    lines = []
    for line in (SUBMISSIONS / f"{name}.py").read_text().splitlines(keepends=True):
        if line.startswith("# @include "):
            line = (SUBMISSIONS / f"{line.split()[-1]}.py").read_text() + "\n"
        lines.append(line)
    return "".join(lines)


def first_fault_message(result: JudgeResult) -> str:
    for test in result.tests:
        if test.verdict not in (Verdict.AC, Verdict.SK):
            return f"{test.message} {test.details}"
    return result.message


@pytest.mark.parametrize("name", _params())
def test_it_withstands(
    name: str,
    package: ProblemPackage,
    backend: Backend,
    docker_client: Any,
    listener: Listener,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sandbox.grader.entry import judge

    expect = EXPECT[name]
    marker = f"hostile-{uuid.uuid4().hex}"
    source = submission_source(name)
    source = source.replace("__PORT__", str(listener.port)).replace("__MARKER__", marker)
    for key, value in CANARIES.items():
        monkeypatch.setenv(key, value)
    run_id = uuid.uuid4().hex

    threads = threading.active_count()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.monotonic()
    result = judge(package, source, mode=expect.mode, backend=backend, labels={TEST_LABEL: run_id})
    elapsed = time.monotonic() - t0

    summary = f"{name}: {result.verdict} in {elapsed:.1f}s; {first_fault_message(result)[:800]!r}"
    assert result.verdict in expect.verdicts, summary
    assert result.verdict != Verdict.IE, summary
    if expect.says:
        assert expect.says in first_fault_message(result), summary
    stretch = machine_load.stretch()  # the bounds are for a machine of its own
    assert elapsed < MAX_JUDGING_S * stretch, f"{summary}; load x{stretch:.1f}"
    if result.verdict == Verdict.TLE:
        assert elapsed < MAX_TLE_JUDGING_S * stretch, f"{summary}; load x{stretch:.1f}"
    # The worker is healthy: no thread kept by the judging (file descriptors: see
    # tests/sandbox/test_docker_backend.py, where the HTTP pool's warm-up can be waited out).
    assert threading.active_count() <= threads, summary
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_kib) / 1024
    assert grown_mib < MAX_WORKER_GROWTH_MIB, f"{summary}; the worker grew by {grown_mib:.0f} MiB"
    if expect.honest_benchmark and result.verdict == Verdict.AC:
        bench = result.benchmark
        assert bench is not None, summary
        assert not bench.verified or bench.speedup < MAX_HONEST_SPEEDUP, f"{summary}; {bench}"
    # Nothing left: no container, no process of it on the host, nothing reached the host.
    left = docker_client.containers.list(
        all=True, sparse=True, filters={"label": f"{TEST_LABEL}={run_id}"}
    )
    for container in left:
        container.remove(force=True)
    assert not left, f"{summary}; containers left behind"
    assert not host_processes_with(marker), f"{summary}; a process of the sandbox survived"
    assert listener.connections == 0 and listener.received == b"", summary
    if expect.max_speedup and result.verdict == Verdict.AC:
        bench = result.benchmark
        assert bench is not None, summary
        # Above the bound only on a host busy beyond its CPUs, whose load slows the quiet
        # rounds too, and then with the quiet cap applied (test_spin_pinned.py says more).
        assert (
            not bench.verified
            or bench.speedup < expect.max_speedup
            or machine_load.quiet_cap_excuses([bench.note], stretch)
        ), f"{summary}; {bench}; load x{stretch:.1f}"
    if expect.hides:  # in what the student is shown (staff keep the whole result, by design)
        shown = result_for_student(result, package.feedback_hidden)
        assert expect.hides not in str(shown.to_json()), summary
    for value in CANARIES.values():
        assert value not in str(result.to_json()), summary
    assert docker_client.ping()


def test_every_submission_has_an_expectation() -> None:
    files = {p.stem for p in SUBMISSIONS.glob("*.py")}
    assert files == set(EXPECT)


def test_the_image_holds_no_problem_package(docker_client: Any, sandbox_image: str) -> None:
    """Checked from outside too: no package file, reference or test anywhere in the image."""
    script = (
        "find / -xdev \\( -path /proc -o -path /sys \\) -prune -o \\( -name problem.toml "
        "-o -name statement.md -o -name solution.py -o -name starter.py -o -name '048-*' "
        "-o -name problems -o \\( -name tests.py -a ! -path '*-packages/*' \\) \\) -print"
    )
    out = docker_client.containers.run(
        sandbox_image, ["sh", "-c", script], remove=True, network_mode="none", user="0:0",
        labels={TEST_LABEL: "image-scan"},
    )
    assert out.decode().strip() == ""


@pytest.mark.parametrize("name", ["kill_parent", "syntax_error", "correct_control"])
def test_manage_py_judge_gives_the_verdict_through_the_docker_backend(
    name: str, docker_client: Any, sandbox_image: str, tmp_path: Path
) -> None:
    """The command tooling depends on: exit 0 whatever the verdict, one JSON object."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "DEBUG": "true", "JUDGE_BACKEND": "docker", "JUDGE_SANDBOX_IMAGE": sandbox_image}
    proc = subprocess.run(
        [sys.executable, "manage.py", "judge", "48", str(SUBMISSIONS / f"{name}.py"), "--mode", "run", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["verdict"] in {str(v) for v in EXPECT[name].verdicts}, proc.stdout[:1000]
    assert result["environment"]["backend"] == "docker"

"""The Docker backend's hardening, checked from inside real containers.

Each test starts containers of the real sandbox image with a small probe script as the
command (instead of the runner) that reports what it sees as one frame on stdout; the last
test talks to the real runner. Needs the engine and ``scripts/build_images sandbox``: skipped
without them, failed when CI=true.
"""

from __future__ import annotations

import contextlib
import json
import os
import textwrap
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.host.backends.base import (
    RUNNER_ENV,
    FrameTooLarge,
    SandboxDied,
    SandboxError,
    SandboxSpec,
    SandboxTimeout,
    get_backend,
)
from sandbox.runner.framing import decode_frame, encode_frame
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.docker

IMAGE = os.environ.get("JUDGE_SANDBOX_IMAGE", "tensor-judge-sandbox:cpu")
TEST_LABEL = "tensor-judge.test"


def _docker_client() -> Any:
    """The engine client, or skip (fail under CI) when the engine or the image is missing."""
    reason = ""
    try:
        import docker

        client = docker.from_env()
        client.ping()
        client.images.get(IMAGE)
        return client
    except Exception as exc:  # no SDK, no engine, no image
        reason = f"Docker engine or image {IMAGE} unavailable ({exc.__class__.__name__}: {exc}); run scripts/build_images"
    skip_or_fail(reason)


@pytest.fixture(scope="module")
def client() -> Any:
    return _docker_client()


@pytest.fixture()
def run_id(client: Any) -> Iterator[str]:
    """A label value unique to the test; after it, no container with it may remain."""
    rid = uuid.uuid4().hex
    yield rid
    left = client.containers.list(all=True, sparse=True, filters={"label": f"{TEST_LABEL}={rid}"})
    for c in left:
        c.remove(force=True)
    assert not left, f"containers left behind: {[c.short_id for c in left]}"


# Prepended to every probe: write one frame (the framing format) to the real stdout.
_PRELUDE = """
import json, os, struct, sys
def reply(obj):
    text = json.dumps(obj).encode()
    payload = struct.pack(">I", len(text)) + text
    sys.stdout.buffer.write(b"TJF1" + struct.pack(">I", len(payload)) + payload)
    sys.stdout.buffer.flush()
def frames():
    i = sys.stdin.buffer
    while True:
        head = i.read(8)
        if len(head) < 8:
            return
        yield head, i.read(struct.unpack(">4sI", head)[1])
"""


def _probe_backend(script: str) -> Any:
    code = _PRELUDE + textwrap.dedent(script)
    return get_backend("docker", image=IMAGE, command=["python3", "-I", "-c", code])


def _spec(run_id: str, **kw: Any) -> SandboxSpec:
    return SandboxSpec(labels={TEST_LABEL: run_id}, **kw)


def _probe(run_id: str, script: str, timeout_s: float = 30.0, **kw: Any) -> dict[str, Any]:
    with _probe_backend(script).start(_spec(run_id, **kw)) as box:
        message, _ = decode_frame(box.recv(timeout_s))
    return message


def test_it_runs_hardened(run_id: str) -> None:
    facts = _probe(
        run_id,
        """
        import resource, socket, subprocess
        st = {}
        for line in open("/proc/self/status"):
            key, _, val = line.partition(":")
            st[key] = val.strip()
        def writable(path):
            try:
                with open(path, "w") as f:
                    f.write("x")
                return True
            except OSError:
                return False
        with open("/tmp/x.sh", "w") as f:
            f.write("#!/bin/sh\\necho ran\\n")
        os.chmod("/tmp/x.sh", 0o755)
        ran = subprocess.run(["/tmp/x.sh"], capture_output=True, text=True).stdout.strip()
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=2)
            net = "connected"
        except OSError as exc:
            net = type(exc).__name__
        reply({
            "uid": os.getuid(), "gid": os.getgid(), "euid": os.geteuid(),
            "cap_eff": st["CapEff"], "cap_prm": st["CapPrm"], "cap_bnd": st["CapBnd"],
            "no_new_privs": st["NoNewPrivs"], "seccomp": st["Seccomp"],
            "root_writable": writable("/opt/judge/x") or writable("/etc/x") or writable("/x"),
            "tmp_exec": ran,
            "ifaces": sorted(os.listdir("/sys/class/net")),
            "net": net,
            "env": sorted(os.environ),
            "core": resource.getrlimit(resource.RLIMIT_CORE),
            "docker_sock": os.path.exists("/var/run/docker.sock") or os.path.exists("/run/docker.sock"),
            "pid1": open("/proc/1/cmdline").read().split("\\0")[0],
            "writable": sorted(
                root for root, dirs, _ in os.walk("/")
                if not root.startswith(("/proc", "/sys")) and os.access(root, os.W_OK)
            ),
        })
        """,
    )
    assert facts["uid"] == facts["euid"] == 10001 and facts["gid"] == 10001
    assert int(facts["cap_eff"], 16) == 0
    assert int(facts["cap_prm"], 16) == 0
    assert int(facts["cap_bnd"], 16) == 0
    assert facts["no_new_privs"] == "1"
    assert facts["seccomp"] == "2"  # filter mode: Docker's default profile
    assert facts["root_writable"] is False
    assert facts["tmp_exec"] == "ran"
    assert facts["ifaces"] == ["lo"]
    assert facts["net"] != "connected"
    # HOSTNAME is set by Docker, LC_CTYPE by Python itself (PEP 538 locale coercion),
    # OMP_NUM_THREADS by the backend (the CPU quota).
    assert set(facts["env"]) <= {
        "HOME",
        "TMPDIR",
        "PATH",
        "HOSTNAME",
        "LC_CTYPE",
        "OMP_NUM_THREADS",
        *RUNNER_ENV,
    }
    assert facts["core"] == [0, 0]
    assert facts["docker_sock"] is False
    assert "init" in facts["pid1"]  # --init: a reaper is PID 1, not the runner
    # /tmp is the one writable place (no /dev/shm); POSIX message queues stay, bounded by
    # RLIMIT_MSGQUEUE (800 KiB per user).
    assert set(facts["writable"]) <= {"/tmp", "/dev/mqueue"} and "/tmp" in facts["writable"]


def test_it_limits_processes_and_threads(run_id: str) -> None:
    facts = _probe(
        run_id,
        """
        import threading, time
        ev = threading.Event()
        n = 0
        err = ""
        try:
            while n < 2000:
                threading.Thread(target=ev.wait, daemon=True).start()
                n += 1
        except RuntimeError as exc:
            err = str(exc)
        ev.set()
        reply({"threads": n, "err": err})
        """,
        pids=64,
    )
    assert facts["threads"] < 64
    assert facts["err"]


def test_it_reports_an_oom_kill(run_id: str) -> None:
    backend = _probe_backend(
        """
        reply({"ready": True})
        hog = []
        while True:
            hog.append(bytearray(16 * 1024 * 1024))
        """
    )
    with backend.start(_spec(run_id, memory_mib=128)) as box:
        box.recv(30)
        with pytest.raises(SandboxDied) as info:
            box.recv(60)
    assert info.value.exit is not None
    assert info.value.exit.oom_killed is True
    assert info.value.exit.killed_by_us is False
    assert box.close().oom_killed is True


def test_it_times_out_and_kills_on_close(run_id: str, client: Any) -> None:
    backend = _probe_backend("import time\ntime.sleep(3600)")
    t0 = time.monotonic()
    with backend.start(_spec(run_id)) as box:
        with pytest.raises(SandboxTimeout):
            box.recv(0.5)
        cid = box.container_id
    exit_info = box.close()
    assert exit_info.killed_by_us is True
    assert time.monotonic() - t0 < 15
    assert not client.containers.list(all=True, sparse=True, filters={"id": cid})


def test_it_kills_at_the_wall_clock_limit(run_id: str) -> None:
    backend = _probe_backend("import time\ntime.sleep(3600)")
    t0 = time.monotonic()
    with backend.start(_spec(run_id, wall_time_s=2.0)) as box:
        with pytest.raises(SandboxDied) as info:
            box.recv(60)
    elapsed = time.monotonic() - t0
    assert 1.5 < elapsed < 12
    assert info.value.exit is not None and info.value.exit.killed_by_us is True


def test_it_refuses_an_oversized_frame(run_id: str) -> None:
    backend = _probe_backend(
        """
        sys.stdout.buffer.write(b"TJF1" + struct.pack(">I", 2**31))
        sys.stdout.buffer.flush()
        import time; time.sleep(60)
        """
    )
    with backend.start(_spec(run_id, max_frame_mib=1)) as box:
        with pytest.raises(FrameTooLarge):
            box.recv(30)


def test_it_refuses_garbage_on_the_channel(run_id: str) -> None:
    backend = _probe_backend('sys.stdout.write(\'{"verdict": "AC"}\' * 10); sys.stdout.flush()')
    with backend.start(_spec(run_id)) as box:
        with pytest.raises(SandboxError):
            box.recv(30)


def test_it_reports_an_early_exit_with_its_status_and_stderr(run_id: str) -> None:
    backend = _probe_backend("print('bye from the runner', file=sys.stderr); sys.exit(3)")
    with backend.start(_spec(run_id)) as box:
        with pytest.raises(SandboxDied) as info:
            box.recv(30)
    exit_info = info.value.exit
    assert exit_info is not None and exit_info.exit_code == 3
    assert exit_info.killed_by_us is False
    assert "bye from the runner" in exit_info.output_tail


def test_it_kills_a_flood_of_output(run_id: str) -> None:
    backend = _probe_backend("while True: sys.stderr.write('x' * 65536)")
    t0 = time.monotonic()
    with backend.start(_spec(run_id, output_kib=64)) as box:
        with pytest.raises(SandboxDied) as info:
            box.recv(60)
    assert info.value.exit is not None and info.value.exit.output_exceeded is True
    assert time.monotonic() - t0 < 15


def test_it_removes_the_container_when_the_block_raises(run_id: str, client: Any) -> None:
    backend = _probe_backend("import time\ntime.sleep(3600)")
    with pytest.raises(ZeroDivisionError):
        with backend.start(_spec(run_id)) as box:
            cid = box.container_id
            1 / 0  # noqa: B018
    assert not client.containers.list(all=True, sparse=True, filters={"id": cid})
    assert box.close() == box.close()  # idempotent


def test_it_echoes_frames_through_stdin_and_stdout(run_id: str) -> None:
    backend = _probe_backend(
        """
        for head, body in frames():
            sys.stdout.buffer.write(head + body)
            sys.stdout.buffer.flush()
        """
    )
    blob = os.urandom(3 * 1024 * 1024)  # bigger than any pipe or socket buffer
    with backend.start(_spec(run_id)) as box:
        for i in range(3):
            box.send(encode_frame({"i": i}, blob))
            message, data = decode_frame(box.recv(30))
            assert message == {"i": i} and data == blob


def test_it_reaps_old_orphans_only(run_id: str, client: Any) -> None:
    """An orphan older than the age is removed, a young one kept. A worker beside this run (the
    stack's, another session's) sweeps old orphans too, and may take the old one first: then
    this reap found nothing to remove, and the pair is made again (a sweep runs once a minute
    per worker process, so it cannot take both pairs within seconds)."""
    labels = {TEST_LABEL: run_id, "tensor-judge.sandbox": "1"}
    for _attempt in range(3):
        old = client.containers.run(
            IMAGE,
            ["sleep", "3600"],
            detach=True,
            network_mode="none",
            labels={**labels, "tensor-judge.created": str(int(time.time()) - 7200)},
        )
        young = client.containers.run(
            IMAGE,
            ["sleep", "3600"],
            detach=True,
            network_mode="none",
            labels={**labels, "tensor-judge.created": str(int(time.time()))},
        )
        try:
            removed = get_backend("docker", image=IMAGE).reap(older_than_s=3600)
            ids = {
                c.id
                for c in client.containers.list(
                    all=True, sparse=True, filters={"label": f"{TEST_LABEL}={run_id}"}
                )
            }
            assert old.id not in ids
            assert young.id in ids
            if removed >= 1:
                return
        finally:
            young.remove(force=True)
            with contextlib.suppress(Exception):  # already reaped
                old.remove(force=True)
    pytest.fail("three old orphans in a row were removed, none by this reap")


def test_the_reap_sandboxes_command_removes_old_orphans(run_id: str, client: Any) -> None:
    import io

    from django.core.management import call_command

    old = client.containers.create(
        IMAGE,
        ["sleep", "3600"],
        network_mode="none",
        labels={
            TEST_LABEL: run_id,
            "tensor-judge.sandbox": "1",
            "tensor-judge.created": str(int(time.time()) - 7200),
        },
    )
    out = io.StringIO()
    call_command("reap_sandboxes", "--older-than", "3600", "--backend", "docker", stdout=out)
    assert "removed" in out.getvalue()
    assert not client.containers.list(all=True, sparse=True, filters={"id": old.id})


def test_the_real_runner_says_hello_and_records_the_environment(run_id: str) -> None:
    backend = get_backend("docker", image=IMAGE)
    with backend.start(_spec(run_id)) as box:
        message, _ = decode_frame(box.recv(60))
        env = box.environment
    assert message.get("op") == "hello", json.dumps(message)[:500]
    assert env["backend"] == "docker"
    assert env["image_id"].startswith("sha256:")


@pytest.mark.gpu
def test_it_gives_the_sandbox_exactly_the_gpu_it_asked_for(run_id: str) -> None:
    """Run by sandbox/gpu_check.sh on a GPU machine (JUDGE_TEST_GPU_ID set there)."""
    gpu_id = os.environ.get("JUDGE_TEST_GPU_ID")
    if not gpu_id:
        pytest.skip("no GPU to test with: run sandbox/gpu_check.sh on a GPU machine")
    image = os.environ.get("JUDGE_SANDBOX_GPU_IMAGE", "tensor-judge-sandbox:cuda")
    code = _PRELUDE + textwrap.dedent(
        """
        import subprocess, torch
        x = torch.ones(1024, device="cuda")
        smi = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
        reply({
            "available": torch.cuda.is_available(), "count": torch.cuda.device_count(),
            "sum": float(x.sum().item()), "smi": smi.strip().splitlines(),
            "caps": os.environ.get("NVIDIA_DRIVER_CAPABILITIES"),
        })
        """
    )
    backend = get_backend("docker", gpu_image=image, command=["python3", "-I", "-c", code])
    with backend.start(_spec(run_id, gpu_id=gpu_id)) as box:
        facts, _ = decode_frame(box.recv(120))
        assert box.environment["device"] == f"cuda:{gpu_id}"
    assert facts["available"] is True and facts["count"] == 1
    assert facts["sum"] == 1024.0
    assert len(facts["smi"]) == 1, facts["smi"]
    assert facts["caps"] == "compute,utility"


def test_a_gpu_is_held_by_one_sandbox_at_a_time(tmp_path: Any) -> None:
    from sandbox.host.backends.gpu_lock import GpuLock

    first, second = GpuLock(str(tmp_path), "GPU-1234/x"), GpuLock(str(tmp_path), "GPU-1234/x")
    first.acquire(1)
    with pytest.raises(SandboxError):
        second.acquire(0.3)
    first.release()
    second.acquire(1)
    second.release()
    assert GpuLock(str(tmp_path), "0").path != first.path


def test_it_leaks_no_file_descriptors_or_threads(run_id: str) -> None:
    import threading

    backend = _probe_backend("import time\ntime.sleep(3600)")

    def one_judging() -> None:
        with backend.start(_spec(run_id)) as box:
            with pytest.raises(SandboxTimeout):
                box.recv(0.1)

    for _ in range(6):  # the Docker client's HTTP connection pool fills up first
        one_judging()
    fds, threads = len(os.listdir("/proc/self/fd")), threading.active_count()
    for _ in range(5):
        one_judging()
    assert len(os.listdir("/proc/self/fd")) <= fds
    assert threading.active_count() <= threads


def test_it_fails_cleanly_when_the_engine_is_unreachable(tmp_path: Any) -> None:
    import docker

    dead = docker.DockerClient(
        base_url=f"unix://{tmp_path}/no-engine.sock", version="1.41", timeout=5
    )
    backend = get_backend("docker", image=IMAGE, client=dead)
    t0 = time.monotonic()
    with pytest.raises(Exception, match="No such file"):  # the grader turns it into IE
        backend.start(SandboxSpec())
    assert time.monotonic() - t0 < 10


def test_it_bounds_tmp_in_bytes_and_in_files(run_id: str) -> None:
    facts = _probe(
        run_id,
        """
        n = 0
        try:
            while n < 100000:
                open(f"/tmp/f{n}", "w").close()
                n += 1
        except OSError as exc:
            files_err = exc.errno
        for f in os.listdir("/tmp"):
            os.unlink(os.path.join("/tmp", f))
        written = 0
        try:
            with open("/tmp/big", "wb") as f:
                while written < 64 << 20:
                    f.write(b"\\0" * (1 << 20))
                    written += 1 << 20
        except OSError as exc:
            bytes_err = exc.errno
        reply({"files": n, "files_err": files_err, "bytes": written, "bytes_err": bytes_err})
        """,
        tmpfs_mib=8,
    )
    assert facts["files"] < 8 * 256 and facts["files_err"] == 28  # ENOSPC
    assert facts["bytes"] <= 8 << 20 and facts["bytes_err"] == 28


def test_a_warm_pool_hands_out_each_ready_sandbox_once(client: Any) -> None:
    backend = _probe_backend("reply({'token': os.urandom(8).hex()})\nimport time\ntime.sleep(3600)")
    from sandbox.host.backends.docker_pool import WarmPool

    backend.pool = WarmPool(backend._start_pooled, size=1, max_idle_s=60)
    seen: list[str] = []
    try:
        with backend.start(SandboxSpec()) as cold:  # a miss: the pool learns the limits
            seen.append(cold.container_id)
            first, _ = decode_frame(cold.recv(30))
        deadline = time.monotonic() + 60
        while backend.pool.ready_count() < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert backend.pool.ready_count() == 1
        t0 = time.monotonic()
        with backend.start(SandboxSpec(wall_time_s=2.0)) as warm:  # a hit
            seen.append(warm.container_id)
            second, _ = decode_frame(warm.recv(30))
            labels = client.containers.get(warm.container_id).labels
            with pytest.raises(SandboxDied) as info:  # its wall clock counts from hand-out
                warm.recv(30)
        assert backend.pool.hits == 1 and backend.pool.misses == 1
        assert second["token"] != first["token"] and seen[0] != seen[1]
        assert labels.get("tensor-judge.pooled") == "1"
        assert info.value.exit is not None and info.value.exit.killed_by_us
        assert 1.5 < time.monotonic() - t0 < 12
    finally:
        backend.close()
        time.sleep(0.5)  # a refill in flight sees the closed pool and removes its sandbox
    left = client.containers.list(all=True, sparse=True, filters={"label": "tensor-judge.pooled=1"})
    assert not {c.id for c in left} & set(seen)
    assert backend.pool.ready_count() == 0


def test_it_counts_the_sandboxes_cpu_time_from_its_cgroup(run_id: str) -> None:
    """``cpu_ns`` is the kernel's count for the whole container (sandbox/host/backends/cgroup_cpu.py):
    flat while its process is blocked on the channel, growing by about the CPU a thread of it
    burns, whatever the code inside says."""
    backend = _probe_backend(
        """
        import threading, time
        def burn(seconds):
            end = time.thread_time() + seconds  # this thread's own CPU time
            while time.thread_time() < end:
                pass
        reply({"ready": True})
        for _ in frames():
            threading.Thread(target=burn, args=(0.3,)).start()
            reply({"spinning": True})
        """
    )
    with backend.start(_spec(run_id, cpuset=None)) as box:
        decode_frame(box.recv(30))
        first = box.cpu_ns()
        assert first is not None and first > 0, "no cgroup file found under /sys/fs/cgroup"
        time.sleep(0.3)
        idle = box.cpu_ns() - first  # blocked on its channel
        box.send(encode_frame({"spin": 1}))
        decode_frame(box.recv(30))
        start = box.cpu_ns()
        # The thread burns 0.3 s of CPU, then ends: about 0.3 s of wall time on a machine of its
        # own, longer on a busy one (the count is CPU time, whatever the wall clock says).
        deadline = time.monotonic() + 30
        burnt = 0
        while burnt <= 200_000_000 and time.monotonic() < deadline:
            time.sleep(0.2)
            burnt = box.cpu_ns() - start
    assert idle < 20_000_000, idle
    assert burnt > 200_000_000, burnt
    assert box.cpu_ns() is None  # gone


def test_without_a_cgroup_root_the_cpu_time_is_not_known(run_id: str) -> None:
    backend = get_backend("docker", image=IMAGE, command=["sleep", "30"], cgroup_root=None)
    with backend.start(_spec(run_id)) as box:
        assert box.cpu_ns() is None

"""The local backend's fork server: runners forked from one interpreter that imported torch
once behave as fresh runners do (limits, own session, private temp dir, exit status), do not
share state, and a dead fork server is replaced or bypassed, never waited on forever."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from test_local_backend import hello, live_session_members, request

from sandbox.host.backends import forkserver
from sandbox.host.backends.base import SandboxDied, SandboxSpec
from sandbox.host.backends.local import LocalBackend, LocalSandbox
from sandbox.runner import framing, wire, wire_decode


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> LocalBackend:
    monkeypatch.setenv("JUDGE_LOCAL_FORK", "1")
    return LocalBackend()


def load(box: LocalSandbox, source: str, functions: list[str]) -> dict[str, object]:
    return request(box, {"op": "load", "source": source, "functions": functions})


def call(box: LocalSandbox, fn: str) -> Any:
    """What the student's function returned."""
    box.send(wire.frame({"op": "call", "fn": fn, "grad_wrt": [], "grad_seed": 0},
                        args=[], kwargs={}))
    message, blob = framing.decode_frame(box.recv(30))
    return dict(wire_decode.decode(message["obs"], blob))["value"]


def test_a_forked_runner_is_a_limited_session_of_its_own(backend: LocalBackend) -> None:
    box = backend.start(SandboxSpec(memory_mib=300, wall_time_s=60))
    assert isinstance(box, LocalSandbox)
    try:
        assert isinstance(box.proc, forkserver.ForkedProcess), "the fork server was not used"
        info = hello(box)
        assert info["device"] == "cpu"
        pid = box.proc.pid
        assert os.getsid(pid) == pid and os.getpgid(pid) == pid
        limits = Path(f"/proc/{pid}/limits").read_text()
        assert f"{(300 + 1024) * 1024 * 1024}" in limits
        assert "Max core file size        0" in limits
        source = (
            "import os, tempfile, subprocess\n"
            "CHILD = subprocess.Popen(['sleep', '300'])\n"
            "def where():\n"
            "    return [os.getcwd(), os.environ['TMPDIR'], os.environ['HOME'],\n"
            "            tempfile.gettempdir()]\n"
        )
        assert load(box, source, ["where"])["status"] == "ok"
        tmp = box.tmp
        assert call(box, "where") == [str(tmp)] * 4
    finally:
        exit_info = box.close()
    assert exit_info.killed_by_us
    assert not tmp.exists()
    assert live_session_members(pid) == [], "a process of the forked sandbox survived close()"


def test_forked_runners_share_no_state_and_report_how_they_ended(backend: LocalBackend) -> None:
    poison = (
        "import torch\n"
        "torch.add = lambda *a, **k: 'patched'\n"
        "def f():\n    return 1\n"
    )
    probe = "import torch\ndef f():\n    return str(torch.add(torch.ones(1), 1).tolist())\n"
    first = backend.start(SandboxSpec(wall_time_s=60))
    second = backend.start(SandboxSpec(wall_time_s=60))
    assert isinstance(first, LocalSandbox) and isinstance(second, LocalSandbox)
    try:
        hello(first)
        hello(second)
        assert load(first, poison, ["f"])["status"] == "ok"
        assert load(second, probe, ["f"])["status"] == "ok"
        assert call(first, "f") == 1
        assert call(second, "f") == "[2.0]"  # the first runner's patch is its own
        # The runner ends on end of input like a fresh one; its exit status comes back.
        assert first.proc.stdin is not None
        first.proc.stdin.close()
        assert first.proc.wait(timeout=30) == 0
    finally:
        first.close()
        second.close()


def test_a_runner_killed_by_a_signal_reports_it_and_the_reader_sees_the_end(
    backend: LocalBackend,
) -> None:
    box = backend.start(SandboxSpec(wall_time_s=60))
    assert isinstance(box, LocalSandbox)
    try:
        hello(box)
        os.kill(box.proc.pid, signal.SIGTERM)
        with pytest.raises(SandboxDied) as died:
            box.recv(30)
        assert died.value.exit is not None and died.value.exit.exit_code == -signal.SIGTERM
    finally:
        box.close()


def test_many_sandboxes_start_at_once(backend: LocalBackend) -> None:
    boxes: list[LocalSandbox] = []
    lock = threading.Lock()

    def start() -> None:
        box = backend.start(SandboxSpec(wall_time_s=60))
        assert isinstance(box, LocalSandbox)
        with lock:
            boxes.append(box)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len({box.proc.pid for box in boxes}) == 6
        for box in boxes:
            assert hello(box)["op"] == "hello"
    finally:
        for box in boxes:
            box.close()


def test_a_dead_fork_server_is_replaced(backend: LocalBackend) -> None:
    with backend.start(SandboxSpec(wall_time_s=60)) as box:
        assert isinstance(box, LocalSandbox)
        hello(box)
    server = next(z for z in forkserver._zygotes.values() if z.alive)
    server.proc.kill()
    server.proc.wait()
    with backend.start(SandboxSpec(wall_time_s=60)) as box:
        assert isinstance(box, LocalSandbox)
        assert hello(box)["op"] == "hello"
        assert isinstance(box.proc, forkserver.ForkedProcess)
    assert not server.alive


def test_it_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_LOCAL_FORK", "0")
    with LocalBackend().start(SandboxSpec(wall_time_s=60)) as box:
        assert isinstance(box, LocalSandbox)
        assert not isinstance(box.proc, forkserver.ForkedProcess)
        message, _ = framing.decode_frame(box.recv(120))
        assert message["op"] == "hello"

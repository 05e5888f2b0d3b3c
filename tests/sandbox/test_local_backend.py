"""The local backend: a subprocess with limits, killed as a group, its temp dir removed.
It is NOT a security boundary and says so."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox.host.backends.base import (
    RUNNER_ENV,
    Backend,
    FrameTooLarge,
    SandboxSpec,
    SandboxTimeout,
)
from sandbox.host.backends.local import LocalSandbox
from sandbox.runner import framing

REPO = Path(__file__).resolve().parents[2]


def hello(box: LocalSandbox) -> dict[str, object]:
    message, _ = framing.decode_frame(box.recv(120))
    assert message["op"] == "hello"
    return message


def request(
    box: LocalSandbox, message: dict[str, object], timeout_s: float = 30
) -> dict[str, object]:
    box.send(framing.encode_frame(message))
    reply, _ = framing.decode_frame(box.recv(timeout_s))
    return reply


def test_the_host_side_never_imports_torch() -> None:
    code = "import sys, sandbox.host.backends.local, sandbox.host.backends; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


def test_it_starts_a_limited_runner_and_cleans_up_everything(local_backend: Backend) -> None:
    box = local_backend.start(SandboxSpec(memory_mib=300, wall_time_s=60))
    assert isinstance(box, LocalSandbox)
    try:
        info = hello(box)
        assert info["device"] == "cpu" and str(info["torch"]).startswith("2.")
        assert "NOT a security boundary" in box.environment["isolation"]
        limits = Path(f"/proc/{box.proc.pid}/limits").read_text()
        assert f"{(300 + 1024) * 1024 * 1024}" in limits  # address space
        assert "Max core file size        0" in limits
        # The student leaves a background process behind: close() must take it too.
        source = (
            "import subprocess\n"
            "CHILD = subprocess.Popen(['sleep', '300'])\n"
            "def axpy(x, y, alpha):\n    return CHILD.pid\n"
        )
        assert (
            request(box, {"op": "load", "source": source, "functions": ["axpy"]})["status"] == "ok"
        )
        tmp = box.tmp
        assert tmp.is_dir()
    finally:
        exit_info = box.close()
    assert exit_info.killed_by_us
    assert not tmp.exists()
    assert live_session_members(box.proc.pid) == [], "a process of the sandbox survived close()"


def live_session_members(sid: int, wait_s: float = 5.0) -> list[str]:
    """Processes of session ``sid`` that are not zombies, once they had ``wait_s`` to go."""
    deadline = time.monotonic() + wait_s
    while True:
        out = subprocess.run(
            ["ps", "-eo", "sid=,stat=,pid="], capture_output=True, text=True
        ).stdout
        alive = [
            line
            for line in out.splitlines()
            if line.split()[0] == str(sid) and "Z" not in line.split()[1]
        ]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def test_recv_times_out_and_the_frame_cap_holds(local_backend: Backend) -> None:
    with local_backend.start(SandboxSpec(max_frame_mib=1, wall_time_s=60)) as box:
        assert isinstance(box, LocalSandbox)
        hello(box)
        with pytest.raises(SandboxTimeout):
            box.recv(0.2)
        source = "import torch\ndef big():\n    return torch.zeros(1 << 20)\n"
        assert (
            request(box, {"op": "load", "source": source, "functions": ["big"]})["status"] == "ok"
        )
        from sandbox.runner import wire

        box.send(
            wire.frame(
                {"op": "call", "fn": "big", "grad_wrt": [], "grad_seed": 0}, args=[], kwargs={}
            )
        )
        with pytest.raises(FrameTooLarge):
            box.recv(30)


def test_the_runner_environment_holds_no_secrets(
    local_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_KEY", "do-not-leak")
    with local_backend.start(SandboxSpec(wall_time_s=60)) as box:
        assert isinstance(box, LocalSandbox)
        hello(box)
        environ = Path(f"/proc/{box.proc.pid}/environ").read_bytes().split(b"\0")
        names = {item.split(b"=", 1)[0].decode() for item in environ if item}
        assert "SECRET_KEY" not in names
        assert names <= {
            "PATH", "HOME", "TMPDIR", "LANG", "OMP_NUM_THREADS", "TRITON_INTERPRET", *RUNNER_ENV
        }
        # No GPU in this spec: Triton's interpreter, as in the triton sandbox image.
        assert b"TRITON_INTERPRET=1" in environ
        assert os.environ["SECRET_KEY"] == "do-not-leak"

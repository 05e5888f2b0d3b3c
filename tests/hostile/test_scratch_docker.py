"""A scratch run in a real Docker sandbox (the grader in this process, as tests/hostile/
test_hostile.py judges): the script sees what a Run's submission sees and nothing more (no
problem file anywhere, no secret in its environment, no network), its tensor prints come back,
and a flood of prints is cut with a note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.grader.contracts import Mode
from sandbox.grader.package import load_package
from sandbox.host.backends.base import get_backend

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-toy"
SCRIPT = '''import os, socket, torch
found = []
for root, dirs, files in os.walk("/", onerror=lambda e: None):
    if root in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    found += [os.path.join(root, n) for n in files
              if n in ("tests.py", "solution.py", "problem.toml") and "-packages/" not in root]
print("found", sorted(found))
print("env", sorted(os.environ))
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    print("network yes")
except OSError:
    print("network no")
print(axpy(torch.arange(3.0), torch.ones(3), 2.0))
for i in range(40000):
    print(i)
'''


def test_a_scratch_script_in_docker_holds_nothing_and_prints_its_tensor(
    docker_client: Any, sandbox_image: str
) -> None:
    from sandbox.grader.entry import judge

    result = judge(load_package(TOY), (TOY / "solution.py").read_text(), mode=Mode.SCRATCH,
                   backend=get_backend("docker", image=sandbox_image), script=SCRIPT)
    assert result.shown_verdict is None, (result.message, [t.message for t in result.tests])
    lines = (result.output or "").splitlines()
    assert lines[0] == "found []"
    assert not any(word in lines[1] for word in ("SECRET", "DATABASE", "DJANGO", "REDIS", "TOKEN"))
    assert lines[2] == "network no"
    assert lines[3] == "tensor([1., 3., 5.])"
    assert lines[-1].startswith("[output truncated: the first 16384 of ")
    assert result.environment["backend"] == "docker"

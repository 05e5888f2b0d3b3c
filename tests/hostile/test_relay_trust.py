"""An author's grader decides nothing about the sandboxes it drives (sandbox/grader/relay.py).

The attack (found by a probe of the stack): an uploaded version's ``tests.py`` runs in the
confined grader, finds the relay's channel and asks the launcher for a *trusted* sandbox, one
the worker keeps between judgings for the catalog's baselines; it plants a hook in it and says
goodbye, so that the next catalog Submit with the same limits would time its baseline (and
measure the machine) in a runner the author had loaded. It also asks for sandboxes with no
limits (0 means "unlimited" to Docker). Through Docker, with a worker's warm pool and keeper:
every unlimited spec is refused, the planted sandbox is never kept, and the catalog Submit that
follows finds its baseline in a fresh sandbox; the catalog's own baseline sandbox is still kept
for the catalog's next Submit. And the held relay: a grader that keeps the relay busy while its
code computes (the author's 120 s of silence never runs out) is stopped at the job's time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge_site.worker.engine import JudgeEngine
from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.package import load_package
from sandbox.host.backends.base import get_backend
from sandbox.host.confined import ConfinedGraders
from tests.sandbox.test_confined import _toy, graders  # noqa: F401 - the fixture
from tests.sandbox.test_engine_pool import P48, _left_after, pooling  # noqa: F401 - the fixture

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-toy"

ATTACK = '''

import gc as _gc
import json as _json


def _attack():
    from sandbox.runner import framing
    from sandbox.host.backends.base import SandboxSpec
    from sandbox.grader.relay import Channel, RelayBackend

    channel = next(o for o in _gc.get_objects() if isinstance(o, Channel))
    found = {}
    for name, spec in (("memory 0", {"memory_mib": 0}), ("pids 0", {"pids": 0}),
                       ("tmpfs 0", {"tmpfs_mib": 0}), ("memory 64 GiB", {"memory_mib": 65536}),
                       ("pids 100000", {"pids": 100000})):
        reply, _ = channel.request({"rpc": "start", "trusted": True, "spec": spec})
        found[name] = reply.get("error", {}).get("message", "started")
        if "box" in reply:
            channel.request({"rpc": "discard", "box": reply["box"]})
    # The plant: the catalog's limits (problem 48's), a hook loaded, a clean goodbye.
    box = RelayBackend(channel, "relay").start_trusted(SandboxSpec(memory_mib=1024, output_kib=64))
    found["sandbox"] = box.environment.get("sandbox", "")
    box.recv(120)
    box.send(framing.encode_frame({"op": "load", "functions": [],
                                   "source": "import builtins\\nbuiltins.PLANTED = 'author'\\n"}))
    found["load"] = framing.decode_frame(box.recv(60))[0].get("status")
    box.send(framing.encode_frame({"op": "bye"}))
    box.recv(10)
    box.close()
    return found


FOUND = _attack()
CASES.insert(0, Case("probe", "axpy", lambda g: Call((torch.ones(2), torch.ones(2), 1.0)),
                     public=True, check=lambda e, g: "PROBE " + _json.dumps(FOUND)))
'''


def _attacker(tmp_path: Path) -> Path:
    """An uploaded version (not under the catalog's folder) with problem 48's memory limit, so
    that a sandbox of its limits would fit problem 48's baseline."""
    folder = tmp_path / "900-toy"
    shutil.copytree(TOY, folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace("memory_mib = 256", "memory_mib = 1024"))
    with (folder / "tests.py").open("a") as tests:
        tests.write(ATTACK)
    return folder


@pytest.mark.docker
@pytest.mark.slow
def test_an_authors_trusted_start_never_reaches_a_catalog_submit(
    tmp_path: Path, pooling: JudgeEngine  # noqa: F811 - the fixture
) -> None:
    """The attack, then the catalog's own keeping: the second Submit of a worker process reuses
    the catalog's baseline sandbox (``baseline_sandbox == "kept"``) with the same verdict and a
    believed speedup, while the student's sandbox is still a new one."""
    import docker

    engine = pooling
    keeper = engine.backend(requires=[]).keeper  # type: ignore[attr-defined]
    attack = engine.judge(load_package(_attacker(tmp_path)), (TOY / "solution.py").read_text(),
                          Mode.RUN)
    probe = next(t for t in attack.tests if t.name == "probe")
    assert "PROBE " in probe.message, (attack.verdict, attack.message, probe)
    found: dict[str, Any] = json.loads(probe.message.split("PROBE ", 1)[1].strip().splitlines()[0])
    for name in ("memory 0", "pids 0", "tmpfs 0", "memory 64 GiB", "pids 100000"):
        assert found[name].startswith("refused: "), (name, found)
    assert found["load"] == "ok", found  # the hook was loaded: the box ran the author's code
    assert keeper.idle_count() == 0 and keeper.started == 0, "a version's sandbox was kept"

    package = load_package(P48)
    correct = (P48 / "solutions" / "AC" / "gather.py").read_text()
    first = engine.judge(package, correct, Mode.SUBMIT)
    assert first.verdict == Verdict.AC, first.message
    assert first.environment["baseline_sandbox"] in ("fresh", "pooled")  # not the planted one
    second = engine.judge(package, correct, Mode.SUBMIT)
    assert second.verdict == Verdict.AC, second.message
    assert second.environment["baseline_sandbox"] == "kept"
    assert second.environment["sandbox"] in ("fresh", "pooled")  # never the kept one
    # A speedup is asserted only where the timing was believed: on a loaded machine the
    # timing guard rejects it (speedup None), which says nothing about the kept sandbox.
    assert second.benchmark is not None
    if second.benchmark.speedup is not None:
        assert 0.2 < second.benchmark.speedup < 5.0
    slow = (P48 / "solutions" / "AC" / "python_loops.py").read_text()
    third = engine.judge(package, slow, Mode.SUBMIT)
    assert third.verdict == Verdict.AC and third.benchmark is not None
    if third.benchmark.speedup is not None:  # the kept baseline times its own kernel
        assert third.benchmark.speedup < 0.5
    assert keeper.reused >= 1 and keeper.idle_count() == 1
    # This process's kept sandbox, by id: other judgings of problem 48 on the machine (the
    # stack's workers, another test session) keep sandboxes of their own.
    ours = [kept.box.container_id for kept in keeper._idle.values()]
    assert len(ours) == 1 and ours[0]

    engine.close()
    client = docker.from_env()
    assert not _left_after(client, {"id": ours}, within_s=10), (
        "closing the pools leaves no kept sandbox behind"
    )


HOLDS_THE_RELAY = """
import gc as _gc
import threading as _threading
import time as _time


def _hold(g):
    from sandbox.grader.relay import Channel

    channel = next(o for o in _gc.get_objects() if isinstance(o, Channel))

    def chatter():  # a request every 0.2 s: the launcher never sees the author's code silent
        while True:
            try:
                channel.request({"rpc": "processes", "box": 999})
            except Exception:
                return
            _time.sleep(0.2)

    _threading.Thread(target=chatter, daemon=True).start()
    _time.sleep(120)  # while the author's code computes for as long as it likes


CASES.insert(0, Case("holds", "axpy", _hold, public=True))
"""


@pytest.mark.slow
def test_a_grader_that_keeps_the_relay_busy_is_stopped_at_the_jobs_time(
    graders: ConfinedGraders, tmp_path: Path  # noqa: F811 - the fixture imported above
) -> None:
    """Requests every 0.2 s keep the author's silence (120 s) from ever running out; the
    job's own time still ends it (6 s here: wherever the job is then, it is IE)."""
    folder = tmp_path / "900-toy"
    shutil.copytree(TOY, folder)
    with (folder / "tests.py").open("a") as tests:
        tests.write(HOLDS_THE_RELAY)
    result = graders.judge(load_package(folder), (TOY / "solution.py").read_text(), mode=Mode.RUN,
                           backend=get_backend("local"), domain="holds", job_s=6.0)
    assert result.verdict == Verdict.IE and "the job ran over its 6 s" in result.message, result
    # The next job of that domain has a fresh grader process (the chatter died with the old).
    again = graders.judge(_toy(tmp_path / "again"), (TOY / "solution.py").read_text(),
                          mode=Mode.RUN, backend=get_backend("local"), domain="holds")
    assert again.verdict == Verdict.AC, again.message

"""The confined grader's launcher and relay (sandbox/host/confined.py and relay_service.py,
sandbox/grader/relay.py and process.py), driven through the local backend: grader processes
are plain subprocesses here (the Docker confinement itself is proven in
tests/hostile/test_hostile_packages.py). A judging through the
grader process gives what an in-process judging gives; a grader process that dies, hangs or
receives a package whose content hash does not match ends the job as IE and is replaced; the
launcher, not the grader, decides the labels and GPU of every sandbox and closes them all."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.entry import judge
from sandbox.grader.package import load_package
from sandbox.host import confined as confined_module
from sandbox.host.backends.base import Backend, SandboxSpec, get_backend
from sandbox.host.confined import GRADER_COMMAND, ConfinedGraders
from sandbox.host.relay_service import CATALOG_DOMAIN, Bounds, BoxService
from tests.fake_backend import FakeBackend, RecordingBackend

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-toy"
GRADER_SPEC = SandboxSpec(memory_mib=3072, pids=256, tmpfs_mib=256, wall_time_s=600)
# Bounds wide enough for every spec these tests start (GRADER_SPEC's included).
WIDE = Bounds(memory_mib=4096, pids=512, tmpfs_mib=512, output_kib=1024, max_frame_mib=256,
              wall_time_s=600.0, recv_s=130.0)


def _service(backend: Backend, labels: dict[str, str] | None = None, domain: str = "toy",
             bounds: Bounds = WIDE) -> BoxService:
    return BoxService(backend, labels or {}, None, domain=domain, bounds=bounds)


@pytest.fixture(scope="module")
def graders() -> Iterator[ConfinedGraders]:
    runner = get_backend("local", command=GRADER_COMMAND)
    found = ConfinedGraders(lambda: runner.start(GRADER_SPEC), max_age_s=600)
    yield found
    found.close()


def _toy(tmp_path: Path) -> Any:
    folder = tmp_path / "900-toy"
    shutil.copytree(TOY, folder)
    shutil.rmtree(folder / "solutions")
    return load_package(folder)


def test_it_judges_as_the_grader_does_in_process(graders: ConfinedGraders, tmp_path: Path) -> None:
    package = _toy(tmp_path)
    source = (TOY / "solution.py").read_text()
    backend = RecordingBackend(get_backend("local"))
    seen: list[str] = []
    there = graders.judge(package, source, mode=Mode.RUN, backend=backend, domain="toy",
                          on_progress=lambda t: seen.append(t.name),
                          labels={"tensor-judge.test": "confined"}, secret_seed=5)
    here = judge(package, source, mode=Mode.RUN, backend=get_backend("local"), secret_seed=5)
    assert there.verdict == here.verdict == Verdict.AC
    assert [(t.name, t.verdict) for t in there.tests] == [(t.name, t.verdict) for t in here.tests]
    assert seen == [t.name for t in there.tests]
    assert there.environment["grader"] == "confined" and there.problem_version == package.version
    assert there.secret_seed == here.secret_seed == 5  # the seed crosses the grader's channel
    # The launcher's labels on every sandbox, whatever the grader asked; all of them closed.
    assert backend.specs and all(s.labels == {"tensor-judge.test": "confined"} for s in backend.specs)
    assert all(box.proc.poll() is not None for box in backend.boxes)  # type: ignore[attr-defined]
    wrong = source.replace("a * x + y", "a * x - y")
    assert wrong != source
    assert graders.judge(package, wrong, mode=Mode.RUN, backend=backend, domain="toy").verdict == Verdict.WA


def test_a_grader_that_dies_mid_job_is_ie_and_replaced(graders: ConfinedGraders, tmp_path: Path) -> None:
    folder = tmp_path / "900-toy"
    shutil.copytree(TOY, folder)
    with (folder / "tests.py").open("a") as tests:
        tests.write("\nimport os\nCASES.insert(0, Case('dies', 'axpy', lambda g: os._exit(3), public=True))\n")
    package = load_package(folder)
    result = graders.judge(package, (TOY / "solution.py").read_text(), mode=Mode.RUN,
                           backend=get_backend("local"), domain="dying")
    assert result.verdict == Verdict.IE and "grader process failed" in result.message, result
    # The next job in that domain gets a fresh grader process.
    fine = _toy(tmp_path / "again")
    again = graders.judge(fine, (TOY / "solution.py").read_text(), mode=Mode.RUN,
                          backend=get_backend("local"), domain="dying")
    assert again.verdict == Verdict.AC


def test_a_grader_that_computes_forever_is_stopped_as_ie(
    graders: ConfinedGraders, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confined_module, "AUTHOR_SILENCE_S", 3.0)
    folder = tmp_path / "900-toy"
    shutil.copytree(TOY, folder)
    with (folder / "tests.py").open("a") as tests:
        tests.write("\nimport time\nCASES.insert(0, Case('spins', 'axpy', lambda g: time.sleep(60), public=True))\n")
    result = graders.judge(load_package(folder), (TOY / "solution.py").read_text(), mode=Mode.RUN,
                           backend=get_backend("local"), domain="slow")
    assert result.verdict == Verdict.IE and "computed for over 3 s" in result.message, result


def test_a_package_whose_files_do_not_match_its_hash_is_refused(graders: ConfinedGraders, tmp_path: Path) -> None:
    package = _toy(tmp_path)
    (package.path / "statement.md").write_text("changed after loading")  # version is stale now
    result = graders.judge(package, (TOY / "solution.py").read_text(), mode=Mode.RUN,
                           backend=get_backend("local"), domain="tampered")
    assert result.verdict == Verdict.IE and "content hash" in result.message, result


def test_the_box_service_refuses_what_the_grader_may_not_ask() -> None:
    service = _service(get_backend("local"), {"mine": "1"})
    try:
        for _ in range(4):
            reply, _ = service.handle({"rpc": "start", "spec": {"memory_mib": 512, "labels": {"x": "y"},
                                                                  "gpu_id": "GPU-0"}}, b"")
            assert "box" in reply, reply
        too_many, _ = service.handle({"rpc": "start", "spec": {}}, b"")
        assert "too many" in too_many["error"]["message"]
        assert service.handle({"rpc": "recv", "box": 1, "timeout_s": -1}, b"")[0]["error"]
        assert service.handle({"rpc": "send", "box": 99}, b"x")[0]["error"]["type"] == "SandboxDied"
        assert service.handle({"rpc": "bogus", "box": 1}, b"")[0]["error"]["type"] == "RelayError"
        assert all(box.spec.labels == {"mine": "1"} and box.spec.gpu_id is None
                   for box in service.boxes.values())
    finally:
        service.close_all()
    assert service.boxes == {}


class _Direct:
    """The grader's channel, short-circuited into the launcher's service."""

    def __init__(self, service: BoxService) -> None:
        self.service = service

    def request(self, message: dict[str, Any], blob: bytes = b"") -> tuple[dict[str, Any], bytes]:
        return self.service.handle(message, blob)


def test_a_sandboxs_cpu_pressure_is_relayed_to_the_grader_as_the_launcher_reads_it() -> None:
    from sandbox.grader.relay import RelayBackend

    for stall_us in (1234, None):  # its cgroup waited 1234 us for a CPU, or cannot tell
        service = _service(FakeBackend(answer=None, stall_us=stall_us))

        box = RelayBackend(_Direct(service), "relay").start(GRADER_SPEC)  # type: ignore[arg-type]
        assert box.cpu_stall_us() == stall_us


class _Counting(_Direct):
    def __init__(self, service: BoxService) -> None:
        super().__init__(service)
        self.rpcs: list[str] = []

    def request(self, message: dict[str, Any], blob: bytes = b"") -> tuple[dict[str, Any], bytes]:
        self.rpcs.append(str(message.get("rpc")))
        return super().request(message, blob)


def test_a_request_and_its_reply_cross_the_relay_as_one_exchange() -> None:
    from sandbox.grader.relay import RelayBackend

    backend = FakeBackend(answer="echo")
    channel = _Counting(_service(backend))
    box = RelayBackend(channel, "relay").start(GRADER_SPEC)  # type: ignore[arg-type]
    box.send(b"one")
    assert box.recv(1.0) == b"one"
    assert channel.rpcs == ["start", "exchange"]  # one trip through the launcher, not two
    box.send(b"two")
    box.send(b"three")  # two sends in a row: the first goes alone, in order
    assert box.recv(1.0) == b"three"
    box.send(b"bye")
    box.cpu_ns()  # any other call sends what waits first
    box.send(b"last")
    box.close()  # and so does the close: nothing sent is lost
    assert backend.boxes[0].sent == [b"one", b"two", b"three", b"bye", b"last"]
    assert channel.rpcs[2:] == ["send", "exchange", "send", "cpu_ns", "send", "close"]


def test_only_the_catalogs_grader_gets_a_sandbox_that_may_be_kept() -> None:
    """A version's grader asking for a trusted sandbox (one the worker may keep and hand to a
    later judging) gets a fresh one; the trust domain on every spec is the launcher's."""
    for domain, door in (("version:abc123", "start"), (CATALOG_DOMAIN, "start_trusted")):
        backend = RecordingBackend(FakeBackend(answer="echo"))
        service = _service(backend, domain=domain)
        try:
            reply, _ = service.handle({"rpc": "start", "trusted": True,
                                       "spec": {"trust_domain": CATALOG_DOMAIN}}, b"")
            assert "box" in reply, reply
            plain, _ = service.handle({"rpc": "start", "spec": {}}, b"")
            assert "box" in plain, plain
        finally:
            service.close_all()
        assert [d for d, _ in backend.starts] == [door, "start"]
        assert all(spec.trust_domain == domain for spec in backend.specs)


def test_the_box_service_refuses_limits_beyond_the_packages_and_clamps_the_wall_time() -> None:
    bounds = Bounds(memory_mib=1024, pids=512, tmpfs_mib=64, output_kib=64, max_frame_mib=256,
                    wall_time_s=300.0, recv_s=120.5)
    fake = FakeBackend(answer="echo")
    backend = RecordingBackend(fake)
    service = _service(backend, bounds=bounds)
    try:
        for bad in ({"memory_mib": 0}, {"pids": 0}, {"tmpfs_mib": 0}, {"output_kib": 0},
                    {"max_frame_mib": 0}, {"memory_mib": 1025}, {"pids": 100000},
                    {"tmpfs_mib": 65}, {"output_kib": 1 << 20}, {"memory_mib": True},
                    {"memory_mib": "512"}, {"memory_mib": -1}, {"wall_time_s": 0},
                    {"wall_time_s": -5}, {"wall_time_s": float("nan")},
                    {"wall_time_s": float("inf")}, {"pids": 1.5}):
            reply, _ = service.handle({"rpc": "start", "spec": bad}, b"")
            assert reply["error"]["message"].startswith("refused: "), (bad, reply)
        assert backend.starts == [], "nothing is started for a refused spec"
        assert len(service.refused) == 17
        reply, _ = service.handle({"rpc": "start", "trusted": True,
                                   "spec": {"wall_time_s": 86400, "memory_mib": 1024}}, b"")
        assert "box" in reply, reply
        assert backend.specs[-1].wall_time_s == 300.0  # a day becomes the job's time
        box = reply["box"]
        for timeout in (121, 86400, -1, float("nan"), True, "5"):
            bad, _ = service.handle({"rpc": "recv", "box": box, "timeout_s": timeout}, b"")
            assert bad["error"]["message"].startswith("bad timeout"), (timeout, bad)
        assert fake.boxes[0].sent == []
    finally:
        service.close_all()


def test_a_grader_cannot_claim_the_gpus_lock_that_no_sandbox_of_its_job_holds() -> None:
    backend = RecordingBackend(FakeBackend(answer="echo"))
    service = BoxService(backend, {}, "GPU-0", domain="version:abc", bounds=WIDE)
    try:
        claim = {"rpc": "start", "spec": {"gpu_lock_held": True}}
        first, _ = service.handle(claim, b"")  # nothing holds the lock yet: it must wait for it
        second, _ = service.handle(claim, b"")  # the first holds it now: its sibling need not
        service.handle({"rpc": "close", "box": first["box"]}, b"")
        third, _ = service.handle(claim, b"")  # the holder is gone: wait for the lock again
        assert all("box" in r for r in (first, second, third))
    finally:
        service.close_all()
    assert [spec.gpu_lock_held for spec in backend.specs] == [False, True, False]
    assert all(spec.gpu_id == "GPU-0" for spec in backend.specs)

"""Authors' code holds no keys: a package's tests.py that reads the environment, opens the
Docker socket, connects to Postgres or Redis, writes outside its tmpfs or forks a daemon is
refused or contained, through Docker, in a judging and in the package check. The package's
code runs in the confined grader (sandbox/grader/process.py: a container of the worker's image
without network, socket, credentials or environment); the probe reports what it could reach
through a public case's failure message, which the student would see."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge_site.worker import confinement
from judge_site.worker.engine import JudgeEngine
from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.package import load_package

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "tests" / "fixtures" / "problems" / "900-toy"
DAEMON_MARK = "987653"  # `sleep 987653`: the daemon the probe forks, looked for on the host
# The grader's code the image must hold as this checkout does (a stale image would prove the
# old code): every module of sandbox/ and kernels/.
CONFINED_CODE = sorted(str(p.relative_to(ROOT)) for folder in ("sandbox", "kernels")
                       for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)

PROBE = '''

import json as _json
import os as _os
import socket as _socket
import subprocess as _subprocess


def _probe():
    found = {}
    found["environment"] = sorted(_os.environ)
    try:
        s = _socket.socket(_socket.AF_UNIX)
        s.settimeout(2)
        s.connect("/var/run/docker.sock")
        s.sendall(b"GET /version HTTP/1.0\\r\\n\\r\\n")
        found["docker"] = "answered: " + s.recv(60).decode(errors="replace")
    except OSError as exc:
        found["docker"] = "refused: " + type(exc).__name__
    for name, host, port in (("postgres", "postgres", 5432), ("redis", "redis", 6379),
                             ("postgres_loopback", "127.0.0.1", 5432),
                             ("redis_loopback", "127.0.0.1", 6379)):
        try:
            _socket.create_connection((host, port), timeout=2).close()
            found[name] = "connected"
        except OSError as exc:
            found[name] = "refused: " + type(exc).__name__
    found["interfaces"] = sorted(n for _, n in _socket.if_nameindex())
    for path in ("/app/evil.txt", "/etc/evil.txt", HOST_MARK):
        try:
            with open(path, "w") as out:
                out.write("x")
            found["write " + path] = "written"
        except OSError as exc:
            found["write " + path] = "refused: " + type(exc).__name__
    try:
        _subprocess.Popen(["sleep", "DAEMON_MARK"], start_new_session=True,
                          stdout=_subprocess.DEVNULL, stderr=_subprocess.DEVNULL)
        found["daemon"] = "started"
    except OSError as exc:
        found["daemon"] = "refused: " + type(exc).__name__
    return found


FOUND = _probe()
CASES.insert(0, Case("probe", "axpy", lambda g: Call((torch.ones(2), torch.ones(2), 1.0)),
                     public=True, check=lambda e, g: "PROBE " + _json.dumps(FOUND)))
'''
SECRETS = ("SECRET", "PASSWORD", "DATABASE", "REDIS", "BROKER", "CELERY", "TOKEN", "POSTGRES")


@pytest.fixture(scope="module")
def worker_image(docker_client: Any) -> str:
    """The worker's image (the confined grader runs in it), with this checkout's grader code."""
    image = os.environ.get("JUDGE_TEST_WORKER_IMAGE", "tensor-judge-worker:offline")
    try:
        docker_client.images.get(image)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"no worker image {image} ({exc}): run scripts/build_images")
    out = docker_client.containers.run(
        image, entrypoint=["sha256sum", *(f"/app/{p}" for p in CONFINED_CODE)], remove=True,
        network_mode="none",
    ).decode()
    built = {line.split()[1].removeprefix("/app/"): line.split()[0] for line in out.splitlines()}
    here = {p: hashlib.sha256((ROOT / p).read_bytes()).hexdigest() for p in CONFINED_CODE}
    if built != here:
        pytest.fail(f"{image} holds another version of the grader's code: run scripts/build_images")
    return image


@pytest.fixture
def confined_docker(settings: Any, worker_image: str, docker_engine: None) -> Iterator[None]:
    settings.JUDGE_BACKEND = "docker"
    settings.JUDGE_CONFINE_AUTHORS = "auto"
    settings.JUDGE_GRADER_IMAGE = worker_image
    confinement.close_graders()
    yield
    confinement.close_graders()


def _hostile_package(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "900-toy"
    shutil.copytree(TOY, folder)
    mark = tmp_path / "host-mark.txt"
    probe = PROBE.replace("HOST_MARK", repr(str(mark))).replace("DAEMON_MARK", DAEMON_MARK)
    with (folder / "tests.py").open("a") as tests:
        tests.write(probe)
    return folder, mark


def _findings(message: str) -> dict[str, Any]:
    assert "PROBE " in message, message
    return dict(json.loads(message.split("PROBE ", 1)[1].strip().splitlines()[0]))


def _assert_contained(found: dict[str, Any], mark: Path) -> None:
    leaked = [k for k in found["environment"] if any(word in k.upper() for word in SECRETS)]
    assert leaked == [], found["environment"]
    assert found["docker"].startswith("refused"), found
    for name in ("postgres", "redis", "postgres_loopback", "redis_loopback"):
        assert found[name].startswith("refused"), (name, found)
    assert found["interfaces"] == ["lo"], found
    for path in ("/app/evil.txt", "/etc/evil.txt", str(mark)):
        assert found["write " + path].startswith("refused"), (path, found)
    assert not mark.exists()


def _daemons() -> list[str]:
    proc = subprocess.run(["pgrep", "-f", f"sleep {DAEMON_MARK}"], capture_output=True, text=True)
    return proc.stdout.split()


def test_a_hostile_tests_py_reaches_nothing_in_a_judging(confined_docker: None, tmp_path: Path) -> None:
    folder, mark = _hostile_package(tmp_path)
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    package = load_package(folder)
    result = JudgeEngine().judge(package, (TOY / "solution.py").read_text(), Mode.RUN)
    assert result.environment.get("grader") == "confined", result
    probe = next(t for t in result.tests if t.name == "probe")
    assert probe.verdict == Verdict.WA
    _assert_contained(_findings(probe.message), mark)
    # The daemon lived in the grader's container only: gone with it.
    assert _daemons(), "the probe's daemon should run inside the grader's container"
    confinement.close_graders()
    assert _daemons() == []
    # The other cases were judged as usual, by the same confined grader.
    assert [t.verdict for t in result.tests if t.name != "probe"] == [Verdict.AC] * 3


def test_the_package_check_runs_the_package_confined_too(confined_docker: None, tmp_path: Path) -> None:
    folder, mark = _hostile_package(tmp_path)
    shutil.rmtree(folder / "solutions")  # the reference and the starter are enough here
    package = load_package(folder)
    backend = JudgeEngine().backend()
    report = confinement.check_package(package, backend, bench=False)
    reference = next(i for i in report.items if i.name.startswith("reference"))
    assert not reference.ok and "probe=WA" in reference.detail, reference
    assert not mark.exists()
    confinement.close_graders()
    assert _daemons() == []


PRACTICE_TOY = ROOT / "tests" / "fixtures" / "practice" / "toy-running-stats"


def test_a_hostile_practice_test_py_reaches_nothing(confined_docker: None, tmp_path: Path) -> None:
    """A practice folder's test.py runs in the confined grader too (its tests drive proxies of
    the student's names from there)."""
    from sandbox.practice import folder as practice_folder

    folder = tmp_path / "in" / "toy-running-stats"
    shutil.copytree(PRACTICE_TOY, folder)
    mark = tmp_path / "host-mark.txt"
    probe = (PROBE.split("FOUND = _probe()")[0].replace("HOST_MARK", repr(str(mark)))
             .replace("DAEMON_MARK", DAEMON_MARK))
    with (folder / "test.py").open("a") as tests:
        tests.write(probe + "\n\ndef test_example_probe():\n"
                    "    raise AssertionError('PROBE ' + _json.dumps(_probe()))\n")
    package = load_package(practice_folder.write_package(practice_folder.read_folder(folder), tmp_path / "p", 7))
    result = JudgeEngine().judge(package, (PRACTICE_TOY / "solution.py").read_text(), Mode.RUN)
    assert result.environment.get("grader") == "confined", result
    probe_result = next(t for t in result.tests if t.name == "test_example_probe")
    assert probe_result.verdict == Verdict.WA, probe_result
    _assert_contained(_findings(probe_result.message), mark)
    confinement.close_graders()
    assert _daemons() == []


def test_a_built_in_problem_is_judged_confined_with_its_verdicts(confined_docker: None) -> None:
    package = load_package(ROOT / "problems" / "048-embedding-tied-head-padding")
    good = (package.path / "solutions" / "AC" / "gather.py").read_text()
    wrong = (package.path / "solutions" / "WA" / "side_ignored.py").read_text()
    seen: list[str] = []
    result = JudgeEngine().judge(package, good, Mode.RUN, on_progress=lambda t: seen.append(t.name))
    assert (result.verdict, result.environment.get("grader")) == (Verdict.AC, "confined")
    assert seen == [t.name for t in result.tests] and seen  # progress came through the relay
    assert JudgeEngine().judge(package, wrong, Mode.RUN).verdict == Verdict.WA

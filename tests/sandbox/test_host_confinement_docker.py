"""A host ``manage.py judge`` of a package outside the trusted catalog runs its authors' code in
the confined grader of the worker image (issue 41), with no JUDGE_GRADER_IMAGE set: the
package's tests.py refuses to load where it sees a host file, so the judging is AC only
when it ran confined. The decision itself: tests/sandbox/test_host_confinement.py."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_image

pytestmark = [pytest.mark.docker, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "tests" / "fixtures" / "problems" / "900-toy"
# tests.py refuses to load where it can see a file of the host command's (a container of the
# worker image sees none of the host's files).
PROBE = ('import os as _os\n'
         'if _os.path.exists({marker!r}):\n'
         '    raise SystemExit("this tests.py ran unconfined, beside the host command")\n')


def test_a_host_judge_of_an_untrusted_package_runs_its_tests_py_in_the_grader(tmp_path: Path) -> None:
    require_image("tensor-judge-worker:offline")
    require_image("tensor-judge-sandbox:cpu")
    package = tmp_path / "problems" / TOY.name
    shutil.copytree(TOY, package, ignore=shutil.ignore_patterns("__pycache__"))
    tests = package / "tests.py"
    marker = tmp_path / "host-only"
    marker.write_text("")
    tests.write_text(PROBE.format(marker=str(marker)) + tests.read_text())

    pids: list[int] = []

    def judge(confine: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "DEBUG": "true", "JUDGE_BACKEND": "docker",
               "JUDGE_PROBLEMS_DIR": str(package.parent), "JUDGE_GRADER_IMAGE": "",
               "JUDGE_CONFINE_AUTHORS": confine}
        with subprocess.Popen(
            [sys.executable, "manage.py", "judge", "900", str(TOY / "solution.py"), "--mode",
             "run", "--json"],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ) as child:  # fmt: skip
            pids.append(child.pid)
            out, err = child.communicate(timeout=300)
        return subprocess.CompletedProcess(child.args, child.returncode, out, err)

    proc = judge("auto")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["verdict"] == "AC", proc.stdout[:2000]
    assert "unconfined" not in proc.stderr
    # Its grader went with it: a command has no worker shutdown (before, each host judge left
    # one running, waiting on a channel nobody held).
    import docker

    from judge_site.worker.host_confinement import COMMAND_LABEL

    mine = f"{COMMAND_LABEL}={socket.gethostname()}-{pids[0]}"
    assert docker.from_env().containers.list(all=True, filters={"label": mine}) == []
    # The probe bites where the code runs beside the command (confinement turned off knowingly).
    unconfined = judge("never")
    assert "runs unconfined as your user" in unconfined.stderr
    assert unconfined.returncode != 0 and "beside the host command" in unconfined.stderr

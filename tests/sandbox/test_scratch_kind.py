"""The scratch run (sandbox/grader/kinds/scratch.py) through the real grader and the local backend: what
its sandbox receives (the student's file and the script, never a case or the reference), what
comes back (the script's prints, bounded), and its verdicts (none for a clean end, RE, MLE,
TLE)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from sandbox.grader.contracts import SCRATCH_OUTPUT_CHARS, JudgeResult, Mode, Verdict
from sandbox.grader.package import ProblemPackage
from sandbox.host.backends.base import Backend, Sandbox, SandboxSpec
from sandbox.runner.framing import decode_frame
from tests.sandbox.conftest import TOY_DIR

SOLUTION = (TOY_DIR / "solution.py").read_text()
PRINTS_A_TENSOR = """import torch
x = torch.arange(6.0).reshape(2, 3)
print(axpy(x, torch.ones(2, 3), 2.0))
print("done", file=__import__("sys").stderr)
"""


class Recording:
    """The local backend, keeping every frame the grader sends to the sandboxes it starts."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.sent: list[tuple[dict[str, Any], bytes]] = []

    def start(self, spec: SandboxSpec) -> Sandbox:
        box = self.inner.start(spec)
        send = box.send

        def record(frame: bytes, op: str = "") -> None:
            self.sent.append(decode_frame(frame))
            send(frame, op)

        box.send = record  # type: ignore[method-assign]
        return box


def scratch(toy: ProblemPackage, backend: Any, script: str, source: str = SOLUTION) -> JudgeResult:
    from sandbox.grader.entry import judge

    return judge(toy, source, mode=Mode.SCRATCH, backend=backend, script=script)


def test_a_scratch_sandbox_gets_the_file_and_the_script_and_nothing_of_the_tests(
    toy: ProblemPackage, local_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(self: ProblemPackage) -> None:
        raise AssertionError("a scratch run loaded the package's cases or reference")

    # The grader never even loads them (a load would end the judging as IE).
    monkeypatch.setattr(ProblemPackage, "load_cases", refused)
    monkeypatch.setattr(ProblemPackage, "load_reference", refused)
    backend = Recording(local_backend)
    result = scratch(toy, backend, PRINTS_A_TENSOR)
    assert result.verdict == Verdict.AC and result.shown_verdict is None, result.message
    assert [message["op"] for message, _ in backend.sent] == ["load", "script", "bye"]
    (load, _), (run, _) = backend.sent[0], backend.sent[1]
    assert (load["source"], load["functions"]) == (SOLUTION, [])
    assert run["source"] == PRINTS_A_TENSOR and run["keep"] == SCRATCH_OUTPUT_CHARS
    assert all(blob == b"" for _, blob in backend.sent)  # no input tensor ever went in
    # The student's own print: the tensor's repr, and stderr in the same output.
    assert "tensor([[ 1.,  3.,  5.],\n        [ 7.,  9., 11.]])" in (result.output or "")
    assert (result.output or "").endswith("done\n")
    data = result.to_json()
    assert data["verdict"] is None and data["output"] == result.output
    assert JudgeResult.from_json(data).output == result.output
    assert [t.name for t in result.tests] == ["script"]


def test_the_scratch_sandbox_holds_no_secret_and_no_package_file(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    result = scratch(toy, local_backend, "import os\nprint(sorted(os.environ))\nprint(sorted(os.listdir('.')))\n")
    env, files = (result.output or "").splitlines()
    assert not any(word in env for word in ("SECRET", "DATABASE", "DJANGO", "REDIS", "TOKEN"))
    assert "solution.py" not in files and "tests.py" not in files


@pytest.mark.parametrize(
    ("script", "verdict", "said"),
    [
        ("import a_module_nobody_has\n", Verdict.RE, "No module named 'a_module_nobody_has'"),
        ("print('before')\naxpy(1.0)\n", Verdict.RE, "missing 2 required positional"),
        ("raise MemoryError('no room')\n", Verdict.MLE, "ran out of memory"),
    ],
)
def test_a_script_that_fails_gets_a_verdict_and_its_traceback(
    toy: ProblemPackage, local_backend: Backend, script: str, verdict: Verdict, said: str
) -> None:
    result = scratch(toy, local_backend, script)
    assert result.verdict == verdict and result.shown_verdict == str(verdict)
    (test,) = result.tests
    assert said in test.message + (result.output or "")
    assert "Traceback" in (result.output or "") and 'File "scratch.py"' in (result.output or "")


def test_a_flood_of_prints_is_cut_with_a_note_and_a_loop_is_tle(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    flood = scratch(toy, local_backend, "for i in range(50000):\n    print(i)\n")
    assert flood.shown_verdict is None
    assert (flood.output or "").startswith("0\n1\n2\n")
    assert "[output truncated: the first 16384 of 288890 characters" in (flood.output or "")
    assert flood.tests[0].details["truncated"] is True
    looped = scratch(toy, local_backend, "while True:\n    pass\n")
    assert looped.verdict == Verdict.TLE and looped.output == ""


def test_a_file_that_does_not_import_is_ce_before_the_script(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    result = scratch(toy, local_backend, "print(1)\n", source="def axpy(:\n")
    assert result.verdict == Verdict.CE and "failed to import" in result.message
    assert result.output == "" and result.to_json()["verdict"] == "CE"


def test_a_package_cannot_declare_itself_of_the_scratch_kind(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    from sandbox.grader.entry import judge

    # The loader refuses it (tests/sandbox/test_package_fields.py); the loop refuses it too.
    result = judge(dataclasses.replace(toy, kind="scratch"), SOLUTION, mode=Mode.RUN,
                   backend=local_backend)
    assert result.verdict == Verdict.IE and "not a problem kind" in result.message
    assert "output" not in result.to_json()


def test_a_scratch_run_through_the_confined_grader_keeps_its_script_and_output(
    toy: ProblemPackage,
) -> None:
    """The Docker backend's path: the grader process gets the script in its job and sends the
    output back (local subprocesses here, as in tests/sandbox/test_confined.py)."""
    from sandbox.host.backends.base import get_backend
    from sandbox.host.confined import GRADER_COMMAND, ConfinedGraders

    runner = get_backend("local", command=GRADER_COMMAND)
    spec = SandboxSpec(memory_mib=3072, pids=256, tmpfs_mib=256, wall_time_s=600)
    graders = ConfinedGraders(lambda: runner.start(spec), max_age_s=600)
    try:
        result = graders.judge(toy, SOLUTION, mode=Mode.SCRATCH, backend=get_backend("local"),
                               domain="toy", script=PRINTS_A_TENSOR)
    finally:
        graders.close()
    assert result.shown_verdict is None and result.environment["grader"] == "confined"
    assert "tensor([[ 1.,  3.,  5.]," in (result.output or "")


def test_the_offline_command_runs_a_script_after_the_file(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from sandbox.__main__ import main

    script = tmp_path / "try.py"
    script.write_text("import torch\nprint(axpy(torch.ones(2), torch.ones(2), 1.0))\n")
    solution = str(TOY_DIR / "solution.py")
    assert main(["judge", str(TOY_DIR), solution, "--mode", "scratch", "--script", str(script)]) == 0
    assert capsys.readouterr().out == "tensor([2., 2.])\nscratch run: your script ran to its end\n"
    assert main(["judge", str(TOY_DIR), solution, "--mode", "scratch"]) == 1
    assert "goes with --script" in capsys.readouterr().err

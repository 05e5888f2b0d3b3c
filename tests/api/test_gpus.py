"""GPU hosts without a GPU: discovery faked at its boundary (the nvidia-smi call), the rest real
(judge_site/worker/gpus.py, the gpus command, the worker's start, engine.gpu_for)."""

from __future__ import annotations

import subprocess
from io import StringIO
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from judge_site.submissions import tasks
from judge_site.worker import engine, gpus

TWO_GPUS = (
    "GPU 0: NVIDIA H200 (UUID: GPU-5c2a6f1e-0000-1111-2222-333344445555)\n"
    "GPU 1: NVIDIA H200 (UUID: GPU-9d1b7a2c-6666-7777-8888-999900001111)\n"
)
MIG = (
    "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaaaaaa-0000-1111-2222-333344445555)\n"
    "  MIG 1g.5gb     Device  0: (UUID: MIG-bbbbbbbb-0000-1111-2222-333344445555)\n"
)


def smi(stdout: str = "", returncode: int = 0, raises: BaseException | None = None) -> Any:
    calls: list[list[str]] = []

    def run(argv: list[str], **_: Any) -> Any:
        calls.append(argv)
        if raises is not None:
            raise raises
        return SimpleNamespace(returncode=returncode, stdout=stdout)

    run.calls = calls  # type: ignore[attr-defined]
    return run


@pytest.fixture(autouse=True)
def no_held_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpus, "_held", None)


def test_nvidia_smi_lines_give_the_gpus_by_uuid() -> None:
    found = gpus.parse_nvidia_smi(TWO_GPUS + "garbage\n")
    assert [(g.index, g.name) for g in found] == [(0, "NVIDIA H200"), (1, "NVIDIA H200")]
    assert found[1].uuid == "GPU-9d1b7a2c-6666-7777-8888-999900001111"
    assert [g.uuid for g in gpus.parse_nvidia_smi(MIG)] == ["GPU-aaaaaaaa-0000-1111-2222-333344445555"]


def test_the_setting_wins_and_nvidia_smi_is_asked_only_without_it(settings: Any) -> None:
    run = smi(TWO_GPUS)
    settings.JUDGE_GPU_IDS = ["0", "1", "2"]
    assert gpus.discover(run=run) == ["0", "1", "2"] and run.calls == []
    settings.JUDGE_GPU_IDS = []
    assert gpus.discover(run=run) == [g.uuid for g in gpus.parse_nvidia_smi(TWO_GPUS)]
    assert run.calls == [["nvidia-smi", "-L"]]


@pytest.mark.parametrize("run", [
    smi(raises=FileNotFoundError("nvidia-smi")),
    smi(raises=subprocess.TimeoutExpired("nvidia-smi", 30)),
    smi("NVIDIA-SMI has failed because it couldn't communicate with the driver", returncode=9),
    smi(""),
])
def test_no_driver_no_tool_or_no_device_is_no_gpu(settings: Any, run: Any) -> None:
    settings.JUDGE_GPU_IDS = []
    assert gpus.discover(run=run) == []


def test_each_judging_process_holds_its_own_gpu(settings: Any) -> None:
    settings.JUDGE_GPU_IDS = []
    run = smi(TWO_GPUS)
    uuids = gpus.discover(run=run)
    held = []
    for index in range(4):  # a process replaced after a crash keeps its index
        held.append(gpus.hold(index, run=run))
    assert held == [uuids[0], uuids[1], uuids[0], uuids[1]]
    gpus.hold(1, run=run)
    gpu_problem, cpu_problem = SimpleNamespace(device="gpu"), SimpleNamespace(device="cpu")
    assert engine.gpu_for(gpu_problem) == uuids[1]  # type: ignore[arg-type]
    assert engine.gpu_for(cpu_problem) is None  # type: ignore[arg-type]


def test_a_host_without_gpus_holds_none_and_a_command_takes_the_first_configured(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_GPU_IDS = []
    monkeypatch.setattr(subprocess, "run", smi(""))  # this host's nvidia-smi, whatever it says
    assert gpus.hold(0) is None
    assert engine.gpu_for(SimpleNamespace(device="gpu")) is None  # type: ignore[arg-type]
    settings.JUDGE_GPU_IDS = ["GPU-1234"]
    assert engine.gpu_for(SimpleNamespace(device="gpu")) == "GPU-1234"  # type: ignore[arg-type]
    settings.JUDGE_GPU_IDS = []
    monkeypatch.setattr(subprocess, "run", smi(TWO_GPUS))  # a one-shot command finds them too
    first = gpus.parse_nvidia_smi(TWO_GPUS)[0].uuid
    assert engine.gpu_for(SimpleNamespace(device="gpu")) == first  # type: ignore[arg-type]


def test_a_gpu_worker_without_a_gpu_refuses_to_start_with_a_message(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_GPU_IDS = []
    monkeypatch.setattr(subprocess, "run", smi(""))
    with pytest.raises(ImproperlyConfigured, match="no GPU was found"):
        tasks._name_sandboxes(sender=None, options={"queues": "gpu"})
    with pytest.raises(ImproperlyConfigured):
        tasks._name_sandboxes(sender=None, options={"queues": ["cpu", "gpu"]})
    tasks._name_sandboxes(sender=None, options={"queues": "cpu,rejudge"})  # no GPU asked: fine
    monkeypatch.setattr(subprocess, "run", smi(TWO_GPUS))
    tasks._name_sandboxes(sender=None, options={"queues": "gpu"})  # GPUs found: starts


def test_the_gpus_command_counts_lists_and_requires(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.JUDGE_GPU_IDS = []
    monkeypatch.setattr(subprocess, "run", smi(TWO_GPUS))
    out = StringIO()
    call_command("gpus", "--count", stdout=out)
    assert out.getvalue().strip() == "2"
    out = StringIO()
    call_command("gpus", stdout=out)
    assert out.getvalue().split() == [g.uuid for g in gpus.parse_nvidia_smi(TWO_GPUS)]
    monkeypatch.setattr(subprocess, "run", smi(raises=FileNotFoundError("nvidia-smi")))
    out = StringIO()
    call_command("gpus", "--count", stdout=out)
    assert out.getvalue().strip() == "0"
    with pytest.raises(CommandError, match="no GPU found"):
        call_command("gpus", "--require", "--count", stdout=StringIO())

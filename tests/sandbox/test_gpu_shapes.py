"""GPU benchmark shapes sized for the device (issue 38, item 1): a shape says where it is timed
(``device`` of a ``[[benchmark.shapes]]`` entry); the package check proves from each GPU shape's
cost model and the device table that it moves >= 4x the H200's L2 and takes >= 1 ms at its speed
of light; the four Triton problems hold; CPU packages are exempt."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from sandbox.bench import shape_rule
from sandbox.bench.shape_rule import gpu_shape_problems, shapes_for, sol_ms
from sandbox.grader.cost import parse_cost
from sandbox.grader.package import PackageError, load_package

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
TRITON = ["056-triton-embedding-gather", "064-triton-attention-forward",
          "079-triton-fused-softmax", "080-triton-fused-rmsnorm"]


@pytest.mark.parametrize("folder", TRITON)
def test_the_triton_problems_gpu_shapes_hold_the_rule(folder: str) -> None:
    package = load_package(PROBLEMS / folder)
    problems, proved = gpu_shape_problems(package)
    assert problems == [] and proved.startswith("on the H200: ")
    assert package.benchmark is not None
    gpu = shapes_for(package.benchmark.shapes, "cuda")
    cpu = shapes_for(package.benchmark.shapes, "cpu")
    assert gpu and cpu and not set(s.name for s in gpu) & set(s.name for s in cpu)
    assert all(1.0 <= (sol_ms(s) or 0) < 5.0 for s in gpu)  # sized by the rule, not far past it


def test_a_small_gpu_shape_a_missing_one_and_a_cpu_package() -> None:
    package = load_package(PROBLEMS / TRITON[2])
    assert package.benchmark is not None
    small = parse_cost({"params": {"R": 64, "C": 1000}, "bytes": "8 * R * C", "flops": "0"})
    shapes = [dataclasses.replace(s, cost=small) if s.device == "gpu" else s
              for s in package.benchmark.shapes]
    tiny = dataclasses.replace(package, benchmark=dataclasses.replace(package.benchmark,
                                                                      shapes=shapes))
    problems, _ = gpu_shape_problems(tiny)
    assert any("the H200's L2, below 4x" in p for p in problems)
    assert any("speed of light, below 1 ms" in p for p in problems)
    cpu_only = [dataclasses.replace(s, device="any") for s in package.benchmark.shapes
                if s.device == "cpu"]
    bare = dataclasses.replace(package, benchmark=dataclasses.replace(package.benchmark,
                                                                      shapes=cpu_only))
    assert "no GPU shapes" in gpu_shape_problems(bare)[0][0]
    assert gpu_shape_problems(dataclasses.replace(bare, device="any")) == (
        [], "no GPU shapes: on a GPU its CPU-sized shapes are timed (launch-bound)")
    assert gpu_shape_problems(dataclasses.replace(bare, device="cpu")) == (
        [], "exempt: a CPU package")
    assert shape_rule.gpu_limits("H200")[0] == 60 * 1024 * 1024
    with pytest.raises(KeyError):
        shape_rule.gpu_limits("a device nobody made")


def test_a_shape_for_an_unknown_device_is_refused_at_load(tmp_path: Path) -> None:
    folder = shutil.copytree(PROBLEMS / TRITON[2], tmp_path / "p")
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace('device = "gpu"\ncase', 'device = "tpu"\ncase'))
    with pytest.raises(PackageError, match="`device` must be cpu, gpu or any"):
        load_package(folder)

"""Benchmark shapes per device class, and the rule that sizes a GPU shape (issue 38, item 1).

A ``[[benchmark.shapes]]`` entry may say where it is timed: ``device = "cpu"`` (only on a CPU,
Triton's interpreter included), ``"gpu"`` (only on a GPU) or ``"any"`` (the default: both).
A judging on a GPU times the package's ``gpu`` and ``any`` shapes; on a CPU, ``cpu`` and
``any`` (``shapes_for``).

On a GPU a shape sized for a CPU times the launch, not the kernel (docs/benchmarks.md, "On a
real H200": 0.0-0.1 % of the speed of light). So the package check proves, from each GPU
shape's cost model and the device table (sandbox/bench/peak.py: ``PUBLISHED`` bandwidth and
flops, ``L2_MIB``) of the site's target GPU (``TARGET_GPU``), that the shape

- moves at least ``MIN_L2_MULTIPLE`` times the device's L2 (its data cannot sit in cache), and
- takes at least ``MIN_SOL_MS`` at the speed of light, ``max(bytes / bandwidth, flops / peak)``
  (any honest kernel takes longer: the launch and the runner's events are then small beside it).

A package whose ``device`` is "cpu" is exempt; one whose ``device`` is "gpu" must declare GPU
shapes; one for "any" device without GPU shapes is noted (its CPU shapes are timed on a GPU).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sandbox.bench.peak import L2_MIB, published_peak

if TYPE_CHECKING:
    from sandbox.grader.package import BenchShape, ProblemPackage

TARGET_GPU = "H200"
MIN_L2_MULTIPLE = 4.0
MIN_SOL_MS = 1.0


def shapes_for(shapes: Sequence[BenchShape], device: str) -> list[BenchShape]:
    """The shapes a judging on ``device`` ("cuda"/"gpu" or "cpu") times."""
    kind = "gpu" if device in ("cuda", "gpu") else "cpu"
    return [shape for shape in shapes if shape.device in (kind, "any")]


def gpu_limits(gpu: str = TARGET_GPU) -> tuple[float, float, float]:
    """(L2 bytes, bandwidth bytes/s, flops/s) of ``gpu`` from the device table."""
    peak = published_peak(gpu)
    if peak is None or peak[0] not in L2_MIB:
        raise KeyError(f"no device {gpu!r} in sandbox/bench/peak.py's tables")
    key, gbps, gflops = peak
    return L2_MIB[key] * 1024 * 1024, gbps * 1e9, gflops * 1e9


def sol_ms(shape: BenchShape, gpu: str = TARGET_GPU) -> float | None:
    """The shape's speed of light on ``gpu``, in ms (None without a cost model)."""
    if shape.cost is None:
        return None
    _, bandwidth, flops = gpu_limits(gpu)
    return 1e3 * max(shape.cost.bytes / bandwidth, shape.cost.flops / flops)


def gpu_shape_problems(package: ProblemPackage, gpu: str = TARGET_GPU) -> tuple[list[str], str]:
    """What breaks the rule in ``package`` (empty: it holds), and a note (what was proved)."""
    if package.device == "cpu" or package.benchmark is None:
        return [], "exempt: a CPU package" if package.device == "cpu" else "no benchmark"
    gpu_shapes = [s for s in package.benchmark.shapes if s.device == "gpu"]
    if not gpu_shapes:
        if package.device == "gpu":
            return [f"no GPU shapes: declare [[benchmark.shapes]] with device = \"gpu\", each "
                    f"moving >= {MIN_L2_MULTIPLE:g}x the {gpu}'s L2 and >= {MIN_SOL_MS:g} ms at "
                    "its speed of light"], ""
        return [], "no GPU shapes: on a GPU its CPU-sized shapes are timed (launch-bound)"
    l2, _, _ = gpu_limits(gpu)
    problems, proved = [], []
    for shape in gpu_shapes:
        light = sol_ms(shape, gpu)
        if shape.cost is None or light is None:
            problems.append(f"{shape.name}: a GPU shape needs a cost model (bytes, flops)")
            continue
        multiple = shape.cost.bytes / l2
        if multiple < MIN_L2_MULTIPLE:
            problems.append(f"{shape.name}: moves {multiple:.1f}x the {gpu}'s L2, below "
                            f"{MIN_L2_MULTIPLE:g}x: make it larger")
        if light < MIN_SOL_MS:
            problems.append(f"{shape.name}: {light:.3f} ms at the {gpu}'s speed of light, below "
                            f"{MIN_SOL_MS:g} ms: make it larger")
        proved.append(f"{shape.name}: {multiple:.0f}x L2, {light:.2f} ms")
    return problems, f"on the {gpu}: " + "; ".join(proved)

"""The speed of light through the real grader (toy problem, local backend): the machine's
limits measured in the baseline's sandbox land in the environment, every shape gets its
fraction of the speed of light, and a time below it is never shown (rule
``faster_than_light``). About 10-20 s: two Submits of the toy (the limits measured once)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sandbox.grader.contracts import JudgeResult, Mode, Trust, Verdict
from sandbox.grader.cost import CostModel
from sandbox.grader.package import ProblemPackage
from sandbox.host.backends.base import Backend

SHAPE_KEYS = {
    "name", "submission_ms", "baseline_ms", "speedup", "sol_ms", "sol_fraction", "bound",
    "bytes", "flops",
}

# the toy's stand-in kernels package (tests/sandbox/conftest.py's KERNELS_ROOT), by path: a
# `from conftest import` finds another directory's conftest when several are run together
KERNELS_ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-toy" / "kernels_root"


def judged_with_cost(toy: ProblemPackage, backend: Backend, cost: CostModel) -> JudgeResult:
    from sandbox.grader.entry import judge

    assert toy.benchmark is not None
    shapes = [dataclasses.replace(s, cost=cost) for s in toy.benchmark.shapes]
    bench = dataclasses.replace(toy.benchmark, shapes=shapes, max_time_s=1.0)
    package = dataclasses.replace(toy, benchmark=bench)
    source = (toy.path / "solution.py").read_text()
    return judge(package, source, mode=Mode.SUBMIT, backend=backend, kernels_root=KERNELS_ROOT)


def test_every_shape_gets_its_fraction_of_the_speed_of_light(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    # axpy on n = 65536 floats: x and y read, the result written; two operations an element
    result = judged_with_cost(toy, local_backend, CostModel("12 * n", "2 * n", {"n": 65536}))
    assert result.verdict == Verdict.AC
    peak = result.environment["peak"]
    assert peak["memory_gbps"] > 0 and peak["gflops"] > 0 and peak["measured_at"]
    bench = result.to_json()["benchmark"]
    (shape,) = bench["shapes"]
    assert set(shape) == SHAPE_KEYS and shape["bound"] == "memory"
    # the cost model's figures travel with the result: the roofline evaluates nothing
    assert (shape["bytes"], shape["flops"]) == (12 * 65536, 2 * 65536)
    assert bench["trust"] != "rejected" or "faster_than_light" not in bench["rule"], bench
    if bench["trust"] == "rejected":  # a burst of load on a busy host: no figure at all
        assert shape["sol_fraction"] is None and shape["speedup"] is None, bench
    else:
        assert 0 < shape["sol_fraction"] <= 1, shape
        assert shape["sol_fraction"] == shape["sol_ms"] / shape["submission_ms"]


def test_a_time_below_the_speed_of_light_is_rejected_and_never_shown(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    # A model a million times too large stands for a submission reported faster than light.
    result = judged_with_cost(toy, local_backend, CostModel("12e6 * n", "0", {"n": 65536}))
    assert result.verdict == Verdict.AC
    bench = result.benchmark
    assert bench is not None and bench.trust == Trust.REJECTED, bench
    assert "faster_than_light" in bench.rule and "speed of light" in bench.note
    (shape,) = bench.shapes
    # rejected: no time, speedup or fraction of light of the submission's is shown at all
    assert shape["submission_ms"] is None and shape["sol_fraction"] is None, bench
    assert shape["speedup"] is None and bench.speedup is None and bench.submission_ms is None
    assert shape["sol_ms"] > 0, bench  # the machine's figure, not the submission's: kept


def test_a_submit_without_a_benchmark_records_the_limits_too(
    toy: ProblemPackage, local_backend: Backend
) -> None:
    from sandbox.bench.peak import CACHE
    from sandbox.grader.entry import judge

    CACHE.clear()  # nothing measured in this process yet: a sandbox for the probe alone
    package = dataclasses.replace(toy, benchmark=None)
    source = (toy.path / "solution.py").read_text()
    result = judge(package, source, mode=Mode.SUBMIT, backend=local_backend, kernels_root=KERNELS_ROOT)
    assert result.verdict == Verdict.AC and result.benchmark is None
    assert result.environment["peak"]["memory_gbps"] > 0
    assert result.environment["baseline_sandbox"] == "local"  # measured beside, never in the student's

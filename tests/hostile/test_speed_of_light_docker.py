"""Never faster than light, judged for real (grader + Docker backend, problem 48 with small
limits as in test_hostile.py): the machine's limits are measured in the baseline's sandbox,
a rewound clock (fake_clock.py) is never shown beating the speed of light, and a time below
it is rejected by the rule ``faster_than_light``. Two Submits (a third or fourth where load
rejected the times first), about 30-60 s."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from test_hostile import LIMITS, PROBLEM, submission_source

from sandbox.bench.trust import RULES
from sandbox.grader.contracts import JudgeResult, Mode, Trust, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def backend(docker_client: Any, sandbox_image: str) -> Backend:
    return get_backend("docker", image=sandbox_image)


def package(scale: float = 1.0) -> ProblemPackage:
    """Problem 48, short benchmark; ``scale`` multiplies every shape's bytes (a model that
    many times too large stands for a submission reported faster than light)."""
    found = load_package(PROBLEM)
    assert found.benchmark is not None
    shapes = []
    for shape in found.benchmark.shapes:
        assert shape.cost is not None
        cost = dataclasses.replace(shape.cost, bytes_expr=f"({shape.cost.bytes_expr}) * {scale}")
        shapes.append(dataclasses.replace(shape, cost=cost))
    bench = dataclasses.replace(found.benchmark, shapes=shapes, max_time_s=2.0)
    return dataclasses.replace(found, limits=LIMITS, benchmark=bench)


def submit(name: str, pkg: ProblemPackage, backend: Backend) -> JudgeResult:
    from sandbox.grader.entry import judge

    return judge(pkg, submission_source(name), mode=Mode.SUBMIT, backend=backend)


def test_a_rewound_clock_is_never_shown_faster_than_light(backend: Backend) -> None:
    result = submit("fake_clock", package(), backend)
    assert result.verdict == Verdict.AC, result.message
    peak = result.environment["peak"]
    assert peak["memory_gbps"] > 0 and peak["gflops"] > 0 and peak["measured_at"]
    bench = result.benchmark
    assert bench is not None and len(bench.shapes) == 2
    for shape in bench.shapes:
        if bench.trust == Trust.REJECTED:  # not believed: no time, no fraction shown at all
            assert shape["sol_fraction"] is None and shape["submission_ms"] is None, bench
            continue
        assert 0 < shape["sol_fraction"] <= 1, bench
        assert shape["submission_ms"] >= shape["sol_ms"], bench


# The trust rules, checked before a time is compared with light (a rejected time is not:
# sandbox/bench/__init__.py): on a busy host one may reject an honest file's times first.
LOAD_RULES = {rule.__name__ for rule in RULES}


def test_a_time_below_the_speed_of_light_is_rejected(backend: Backend) -> None:
    # Up to three judgings: one whose every shape a burst of load had rejected first (CI's
    # other session beside it: gap_excess, once in the six runs of stop 35) is judged again.
    for _ in range(3):
        result = submit("correct_control", package(scale=1e5), backend)
        assert result.verdict == Verdict.AC, result.message
        bench = result.benchmark
        assert bench is not None and bench.trust == Trust.REJECTED, bench
        for shape in bench.shapes:  # rejected: no time of the submission's shown at all
            assert shape["sol_fraction"] is None and shape["submission_ms"] is None, bench
            assert shape["speedup"] is None and bench.speedup is None, bench
        rules = set(bench.rule.split("; "))
        if "faster_than_light" in rules:
            break
        assert rules <= LOAD_RULES, bench
    assert "faster_than_light" in bench.rule, bench

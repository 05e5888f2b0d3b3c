"""Re-verification of timed outputs uses the hidden tests' own comparison (tolerances, tie
rules), not an exact one: a float32 near-tie of a top-k must not reject correct code."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch

from sandbox.bench.verify import comparison_case, outputs_agree
from sandbox.grader.contracts import Verdict
from sandbox.grader.package import BenchShape, PackageError, load_package
from sandbox.problem import Call, Case
from sandbox.runner import wire, wire_decode

P53 = Path(__file__).resolve().parents[2] / "problems" / "053-embedding-neighbours"


def _as_received(value: object) -> object:
    """The value as the grader gets it back from a sandbox (classes kept)."""
    tree, blob = wire.encode(value)
    return wire_decode.decode(tree, blob, keep_class=True)


def _near_tie() -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """A table where query 0's two best neighbours differ in cosine by about 1e-7, and the
    reference's answer with those two swapped (what another float32 summation order gives)."""
    weight = torch.tensor(
        [[1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [0.8, 0.0, 0.6], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    )
    weight[2, 0] += 2e-7  # cosine(0, 2) now exceeds cosine(0, 1) by about 1e-7
    tokens = torch.tensor([0])
    return weight, tokens, (torch.tensor([[1, 2, 3]]), torch.zeros(1, 3))


def test_a_float32_near_tie_of_a_top_k_is_accepted_with_the_hidden_tests_comparison() -> None:
    package = load_package(P53)
    assert package.benchmark is not None
    shape = package.benchmark.shapes[0]
    reference = package.load_reference().nearest_neighbours
    weight, tokens, _ = _near_tie()
    ids, sims = reference(weight, tokens, 2)
    gap = float(sims[0, 0] - sims[0, 1])
    assert 0 < gap < 1e-6, gap  # a real float32 near-tie
    swapped = (ids.flip(-1), sims.flip(-1).clone())
    swapped[1][0] = sims[0]  # similarities as computed the other way: equal within 1e-7
    got = _as_received(swapped)

    exact = Case(name="benchmark", fn=shape.fn, make=lambda gen: Call())  # the old comparison
    assert outputs_agree((ids, sims), got, exact, package).verdict == Verdict.WA

    case = comparison_case(package.load_cases(), shape)
    assert case.check is not None and case.name == f"benchmark {shape.name}" and not case.public
    assert outputs_agree((ids, sims), got, case, package).verdict == Verdict.AC
    wrong = _as_received((torch.tensor([[1, 4]]), sims.clone()))
    assert outputs_agree((ids, sims), wrong, case, package).verdict == Verdict.WA


def test_a_shape_may_name_the_case_whose_comparison_applies() -> None:
    def check(expected: object, got: object) -> str | None:
        return None

    cases = [
        Case("public", "f", lambda g: Call(), public=True),
        Case("plain", "f", lambda g: Call()),
        Case("ties", "f", lambda g: Call(), check=check),
        Case("exact", "f", lambda g: Call(), exact=True),
        Case("other", "g", lambda g: Call(), exact=True),
    ]
    shape = BenchShape(name="s", fn="f", args=[])
    assert comparison_case(cases, shape).check is check
    named = comparison_case(cases, BenchShape(name="s", fn="f", args=[], case="exact"))
    assert named.exact and named.check is None
    assert comparison_case(cases[:2], shape).name == "benchmark s"
    with pytest.raises(PackageError):
        comparison_case(cases, BenchShape(name="s", fn="f", args=[], case="other"))


def test_the_trust_enum_round_trips_and_old_results_read_back() -> None:
    from sandbox.grader.contracts import BenchmarkResult, Trust

    charged = BenchmarkResult(1.2, 1.0, 1.2, trust=Trust.CHARGED, rule="gap_excess")
    data = charged.to_json()
    assert data["trust"] == "charged" and data["verified"] is True and data["rule"] == "gap_excess"
    assert BenchmarkResult.from_json(data) == charged
    old = {"speedup": 1.0, "submission_ms": 1.0, "baseline_ms": 1.0, "verified": False, "note": "x"}
    assert BenchmarkResult.from_json(old).trust == Trust.REJECTED
    assert not BenchmarkResult.from_json(old).verified
    assert Trust.worst([Trust.VERIFIED, Trust.REJECTED, Trust.CHARGED]) == Trust.REJECTED


P65 = Path(__file__).resolve().parents[2] / "problems" / "065-fused-add-rmsnorm"


def test_a_large_shapes_other_summation_order_is_accepted_and_a_wrong_output_is_not() -> None:
    """Problem 65's backward at its benchmark shape (2048 x 1024): a correct file that sums the
    weight's gradient 64 rows at a time rounds one element past the tests' float32 tolerance on
    this draw (the tests' shapes are small) and is accepted; stale, low-precision and partly
    wrong outputs are not."""
    import importlib.util

    package = load_package(P65)
    assert package.benchmark is not None
    shape = next(s for s in package.benchmark.shapes if s.fn == "add_rms_norm_backward")
    case = comparison_case(package.load_cases(), shape)
    reference = package.load_reference().add_rms_norm_backward
    spec = importlib.util.spec_from_file_location(
        "chunked", P65 / "solutions" / "AC" / "chunked_weight_sum.py")
    assert spec is not None and spec.loader is not None
    chunked = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(chunked)

    def draw(seed: int) -> tuple[torch.Tensor, ...]:
        gen = torch.Generator().manual_seed(seed)
        return tuple(torch.randn(*dims, generator=gen) for dims in ((2048, 1024), (1024,), (2048, 1024), (2048, 1024)))

    args = draw(11)
    expected = reference(*args, 1e-6)
    mine = chunked.add_rms_norm_backward(*args, 1e-6)
    exact_tests = dataclasses.replace(case, check=None)
    from sandbox.grader.compare import compare

    plain = compare({"kind": "return", "value": expected, "inputs_modified": [], "grads": None},
                    {"kind": "return", "value": _as_received(mine), "inputs_modified": [], "grads": None},
                    exact_tests, package.tolerances)
    assert plain.verdict == Verdict.WA, "this draw no longer shows the rounding past the tolerance"
    assert outputs_agree(expected, _as_received(mine), case, package).verdict == Verdict.AC

    stale = reference(*draw(12), 1e-6)
    low = tuple(t.bfloat16().float() for t in mine)
    one_row = (mine[0].clone(), mine[1])
    one_row[0][7] = 0.0
    for wrong in (stale, low, one_row):
        assert outputs_agree(expected, _as_received(wrong), case, package).verdict == Verdict.WA

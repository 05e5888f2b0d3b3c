"""Re-verification of the submission's timed outputs, with the comparison of the problem's own
hidden tests (tolerances, ``exact``, ``allow_nan``, a ``check`` with its tie rules): an exact
check would reject correct code on float32 near-ties of an argmax or a top-k.

The benchmark's shapes are far larger than the tests', and a float32 reduction over thousands
of terms rounds differently in another correct order: problem 65's weight gradient summed 64
rows at a time exceeds the element-wise float32 tolerance (1e-5 + 1e-4 |x|) at 1.19 times it on
an element of one draw in twelve at 2048 x 1024, while its error as a whole (the norm of the
difference over the norm of the reference) is 1.6e-7. So a timed output that fails the tests'
comparison on values alone is still the function's own output when every floating tensor is
within ``SPREAD`` times the tolerance element by element and within the dtype's ``rtol`` as a
whole: a result from other inputs, a stale one, a lower precision (bfloat16: 4e-3, TF32: 1e-3)
or one wrong row in 2048 (2e-2) are all far outside it. Never looser for a ``check``, an exact
case, a shape, a dtype or a NaN: those keep the tests' comparison.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import torch

from sandbox.grader.compare import DEFAULT_TOLERANCES, Outcome, compare, tolerance_for
from sandbox.grader.contracts import TestResult, Verdict, WrongKind
from sandbox.grader.package import BenchShape, PackageError, ProblemPackage, Tolerance
from sandbox.problem import Call, Case
from sandbox.runner import digests, inputs, protocol, wire, wire_decode

SPREAD = 16.0  # how far past the element-wise tolerance one element of a large shape may round

if TYPE_CHECKING:
    from sandbox.bench.timing import Timed
    from sandbox.grader.session import Session


def comparison_case(cases: list[Case], shape: BenchShape) -> Case:
    """The case whose comparison judges ``shape``'s timed outputs: the one the shape names
    (``case = "..."`` in problem.toml), else the first hidden case of ``shape.fn`` that declares
    a ``check``, else its first hidden case, else its first case; renamed for the benchmark."""
    if shape.case is not None:
        named = [c for c in cases if c.name == shape.case]
        if not named or named[0].fn != shape.fn:
            raise PackageError(
                f"benchmark shape {shape.name!r}: case {shape.case!r} is not a case of {shape.fn}"
            )
        chosen: Case | None = named[0]
    else:
        own = [c for c in cases if c.fn == shape.fn]
        hidden = [c for c in own if not c.public]
        chosen = next(
            (c for c in hidden if c.check is not None),
            hidden[0] if hidden else own[0] if own else None,
        )
    name = f"benchmark {shape.name}"
    if chosen is None:
        return Case(name=name, fn=shape.fn, make=lambda gen: Call())
    return dataclasses.replace(chosen, name=name, public=False, grad_wrt=())


def outputs_agree(
    expected_value: Any, got_value: Any, case: Case, package: ProblemPackage
) -> Outcome:
    """The comparison of one timed output (decoded, classes kept) with the reference's: the
    tests' own, or, where that fails on values alone, the large shape's (module docstring)."""
    expected = {"kind": "return", "value": expected_value, "inputs_modified": [], "grads": None}
    got = {"kind": "return", "value": got_value, "inputs_modified": [], "grads": None}
    outcome = compare(expected, got, case, package.tolerances)
    if (outcome.verdict == Verdict.AC or outcome.wrong_kind != WrongKind.VALUE
            or case.check is not None or case.exact):
        return outcome
    spread = {name: Tolerance(t.atol * SPREAD, t.rtol * SPREAD)
              for name, t in {**DEFAULT_TOLERANCES, **package.tolerances}.items()}
    if compare(expected, got, case, spread).verdict != Verdict.AC:
        return outcome
    if _close_as_a_whole(expected_value, wire_decode.strip_classes(got_value), package.tolerances):
        return Outcome(Verdict.AC)
    return outcome


def _close_as_a_whole(expected: Any, got: Any, tolerances: dict[str, Tolerance]) -> bool:
    """Every floating tensor of ``got`` within its dtype's ``rtol`` of ``expected``'s as a
    whole: the norm of the difference (non-finite places, equal in both by then, left out)
    over the reference's norm, ``atol`` per element where that norm is tiny. The structure,
    shapes and dtypes were compared before."""
    if isinstance(expected, torch.Tensor) and isinstance(got, torch.Tensor):
        if not expected.is_floating_point() or expected.numel() == 0:
            return True
        tol = tolerance_for(wire.DTYPE_NAMES.get(expected.dtype, "float64"), tolerances)
        e64, g64 = expected.detach().cpu().double(), got.detach().cpu().double()
        finite = torch.isfinite(e64) & torch.isfinite(g64)
        e64, g64 = torch.where(finite, e64, 0.0), torch.where(finite, g64, 0.0)
        scale = max(float(e64.norm()), tol.atol * expected.numel() ** 0.5)
        return float((g64 - e64).norm()) <= tol.rtol * scale
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        return len(expected) == len(got) and all(
            _close_as_a_whole(e, g, tolerances) for e, g in zip(expected, got, strict=True))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(
            _close_as_a_whole(expected[k], got[k], tolerances) for k in expected)
    return True  # not a tensor: compared exactly already


class Verifier:
    """Checks one timed output of the submission: its keyed digest (the output did not change
    after the call returned) and its value against the reference run here on the same inputs."""

    def __init__(self, package: ProblemPackage, shape: BenchShape, cases: list[Case]) -> None:
        self.fn = getattr(package.load_reference(), shape.fn)
        self.package = package
        self.shape = shape
        self.case = comparison_case(cases, shape)
        # The last check's inputs, overwritten by the next (as the runner recycles its own:
        # fresh 8 MiB of a table cost more in page faults than the writing, 3.5 ms against
        # 1.5 ms for problem 48's).
        self.spent: list[Any] | None = None

    def check(self, session: Session, timed: Timed, timeout_s: float) -> TestResult | None:
        reply, blob = session.request(
            protocol.last_output("timed"), timeout_s, "the benchmark"
        )
        try:
            fetched = digests.digest_encoded(reply.get("value"), blob, timed.key)
        except (wire.WireError, TypeError, ValueError):
            fetched = ""
        if fetched != timed.digest:
            return TestResult(
                name=f"benchmark {self.shape.name}",
                public=False,
                verdict=Verdict.WA,
                message="your function's output changed after it returned (work was left "
                "running after the timed call)",
                wrong_kind=WrongKind.VALUE,
            )
        got_value = session.value(reply, blob, "value")
        args = inputs.build_inputs(self.shape.args, timed.seed, "cpu", self.spent)
        self.spent = args
        expected_value = self.fn(*inputs.late_input(self.shape.args, args, timed.late_seed))
        outcome = outputs_agree(expected_value, got_value, self.case, self.package)
        if outcome.verdict == Verdict.AC:
            return None
        return TestResult(
            name=f"benchmark {self.shape.name}",
            public=False,
            verdict=Verdict.WA,
            message="your function's output during the benchmark differs from the reference",
            wrong_kind=outcome.wrong_kind or WrongKind.VALUE,
        )

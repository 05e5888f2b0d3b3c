"""Re-verification of the submission's timed outputs, with the comparison of the problem's own
hidden tests (tolerances, ``exact``, ``allow_nan``, a ``check`` with its tie rules): an exact
check would reject correct code on float32 near-ties of an argmax or a top-k."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from sandbox import digests, inputs, wire
from sandbox.compare import Outcome, compare
from sandbox.contracts import TestResult, Verdict, WrongKind
from sandbox.problem import BenchShape, Call, Case, PackageError, ProblemPackage

if TYPE_CHECKING:
    from sandbox.bench.timing import Timed
    from sandbox.session import Session


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
    """The comparison of one timed output (decoded, classes kept) with the reference's."""
    expected = {"kind": "return", "value": expected_value, "inputs_modified": [], "grads": None}
    got = {"kind": "return", "value": got_value, "inputs_modified": [], "grads": None}
    return compare(expected, got, case, package.tolerances)


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
            {"op": "last_output", "which": "timed"}, timeout_s, "the benchmark"
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

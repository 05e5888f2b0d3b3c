"""The comparison: every WrongKind, tolerances, NaN rules, exceptions."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from sandbox.grader.compare import compare
from sandbox.grader.contracts import Verdict, WrongKind
from sandbox.grader.package import Tolerance
from sandbox.problem import Call, Case
from sandbox.runner.wire import Unsupported, WireTensor

CASE = Case("c", "f", lambda g: Call())


def ret(value: Any, **extra: Any) -> dict[str, Any]:
    return {"kind": "return", "value": value, "inputs_modified": [], "grads": None, **extra}


def got(value: Any, cls: str = "torch.Tensor", **extra: Any) -> dict[str, Any]:
    return ret(WireTensor(value, cls) if isinstance(value, torch.Tensor) else value, **extra)


def raised(name: str, *mro: str) -> dict[str, Any]:
    return {
        "kind": "raise",
        "type": name,
        "mro": [name, *mro, "Exception"],
        "message": "m",
        "traceback": "tb",
    }


def check(
    expected: dict[str, Any],
    observed: dict[str, Any],
    case: Case = CASE,
    tols: dict[str, Tolerance] | None = None,
):  # noqa: ANN201
    return compare(expected, observed, case, tols or {})


def test_it_accepts_values_within_the_float32_default_tolerance() -> None:
    e = torch.tensor([1.0, 2.0])
    assert check(ret(e), got(e + 1e-6)).verdict == Verdict.AC


def test_it_reports_the_worst_element_of_a_value_mismatch() -> None:
    e = torch.zeros(2, 3)
    g = e.clone()
    g[1, 2], g[0, 0] = 5.0, 0.1
    out = check(ret(e), got(g))
    assert (out.verdict, out.wrong_kind) == (Verdict.WA, WrongKind.VALUE)
    assert out.details["index"] == [1, 2] and out.details["got"] == 5.0
    assert out.details["mismatched"] == 2 and out.details["total"] == 6


def test_package_tolerances_override_the_defaults() -> None:
    e = torch.tensor([1.0])
    loose = {"float32": Tolerance(atol=0.5, rtol=0.0)}
    assert check(ret(e), got(e + 0.4), tols=loose).verdict == Verdict.AC
    assert check(ret(e), got(e + 0.4)).verdict == Verdict.WA


@pytest.mark.parametrize(
    ("expected", "observed", "kind"),
    [
        (torch.zeros(2), torch.zeros(3), WrongKind.SHAPE),
        (torch.zeros(2), torch.zeros(2, dtype=torch.float64), WrongKind.DTYPE),
        (torch.zeros(2), torch.tensor([0.0, math.nan]), WrongKind.NAN),
        (torch.zeros(2), torch.tensor([0.0, math.inf]), WrongKind.NAN),
        (torch.tensor([1, 2]), torch.tensor([1, 3]), WrongKind.VALUE),
    ],
)
def test_it_classifies_tensor_mismatches(
    expected: torch.Tensor, observed: torch.Tensor, kind: WrongKind
) -> None:
    out = check(ret(expected), got(observed))
    assert (out.verdict, out.wrong_kind) == (Verdict.WA, kind)


def test_nan_matches_nan_only_when_the_case_allows_it() -> None:
    e = torch.tensor([1.0, math.nan, -math.inf])
    allow = Case("c", "f", lambda g: Call(), allow_nan=True)
    assert check(ret(e), got(e.clone()), case=allow).verdict == Verdict.AC
    assert check(ret(e), got(e.clone())).wrong_kind == WrongKind.NAN
    assert (
        check(ret(e), got(torch.tensor([1.0, 0.0, -math.inf])), case=allow).wrong_kind
        == WrongKind.NAN
    )


def test_exact_cases_compare_bits() -> None:
    exact = Case("c", "f", lambda g: Call(), exact=True)
    e = torch.tensor([1.0, 2.0])
    assert check(ret(e), got(e + 1e-7), case=exact).wrong_kind == WrongKind.VALUE
    assert check(ret(e), got(e.clone()), case=exact).verdict == Verdict.AC


@pytest.mark.parametrize(
    ("expected", "observed"),
    [
        ((torch.ones(1), 1), [WireTensor(torch.ones(1), "torch.Tensor"), 1]),
        (torch.ones(1), WireTensor(torch.ones(1), "submission.Lazy")),
        (torch.ones(1), [1.0]),
        (1.0, 1),
        ({"a": 1}, {"a": 1, "b": 2}),
        (torch.ones(1), Unsupported("numpy.ndarray")),
    ],
)
def test_it_refuses_the_wrong_type_or_structure(expected: Any, observed: Any) -> None:
    out = check(ret(expected), ret(observed))
    assert (out.verdict, out.wrong_kind) == (Verdict.WA, WrongKind.TYPE)


def test_exceptions_match_by_the_students_mro() -> None:
    expected = raised("LookupError")
    assert check(expected, raised("IndexError", "LookupError")).verdict == Verdict.AC
    assert check(expected, raised("TypeError")).wrong_kind == WrongKind.WRONG_EXCEPTION
    assert check(expected, got(torch.ones(1))).wrong_kind == WrongKind.DID_NOT_RAISE


def test_raising_where_the_reference_returned_is_a_runtime_error_and_memory_is_mle() -> None:
    out = check(ret(torch.ones(1)), raised("IndexError", "LookupError"))
    assert (out.verdict, out.wrong_kind) == (Verdict.RE, WrongKind.RAISED)
    assert out.details["traceback"] == "tb"
    assert check(ret(torch.ones(1)), raised("MemoryError")).verdict == Verdict.MLE


def test_inputs_modified_and_gradients() -> None:
    e = torch.ones(2)
    assert (
        check(ret(e), got(e, inputs_modified=["args[0]"])).wrong_kind == WrongKind.INPUTS_MODIFIED
    )
    grad_case = Case("c", "f", lambda g: Call(), grad_wrt=(0,))
    good = got(e, grads=[WireTensor(torch.ones(2), "torch.Tensor")])
    assert check(ret(e, grads=[torch.ones(2)]), good, case=grad_case).verdict == Verdict.AC
    bad = got(e, grads=[None])
    assert check(ret(e, grads=[torch.ones(2)]), bad, case=grad_case).wrong_kind == WrongKind.GRAD


def test_a_custom_check_replaces_the_value_comparison_but_not_the_type_rules() -> None:
    lenient = Case("c", "f", lambda g: Call(), check=lambda e, g: None if g.sum() > 0 else "empty")
    assert check(ret(torch.ones(2)), got(torch.ones(3)), case=lenient).verdict == Verdict.AC
    assert (
        check(ret(torch.ones(2)), got(torch.zeros(3)), case=lenient).wrong_kind == WrongKind.VALUE
    )
    assert (
        check(ret(torch.ones(2)), got(torch.ones(3), "x.Lazy"), case=lenient).wrong_kind
        == WrongKind.TYPE
    )

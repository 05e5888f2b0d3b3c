"""Expected beside actual (sandbox/grader/compare_view.py): the bounded picture of a public test's wrong
tensor, and the rule that a hidden test never carries one."""

from __future__ import annotations

import json
import math
from typing import Any

import torch

from sandbox.grader.compare import compare
from sandbox.grader.contracts import FeedbackPolicy, JudgeResult, TestResult, Verdict
from sandbox.grader.feedback import for_student, result_for_student
from sandbox.grader.package import Tolerance
from sandbox.problem import Call, Case
from sandbox.runner.wire import WireTensor

PUBLIC = Case("c", "f", lambda g: Call(), public=True)


def picture(
    expected: torch.Tensor, got: torch.Tensor, case: Case = PUBLIC, show: bool = True
) -> dict[str, Any] | None:
    obs = {"kind": "return", "inputs_modified": [], "grads": None}
    outcome = compare(
        {**obs, "value": expected}, {**obs, "value": WireTensor(got, "torch.Tensor")}, case, {},
        show=show,
    )
    assert outcome.verdict == Verdict.WA
    # Strict JSON (no NaN literal): what Postgres's jsonb and every client can read.
    json.dumps(outcome.compare, allow_nan=False)
    return outcome.compare


def cells(grid: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for row in grid["rows"] for cell in row["cells"]]


def marked(grid: dict[str, Any]) -> list[tuple[str, int]]:
    return [(row["label"], i) for row in grid["rows"] for i, c in enumerate(row["cells"]) if c["bad"]]


def test_it_shows_a_small_tensor_whole_with_the_differing_element_marked() -> None:
    e = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    g = e.clone()
    g[1, 2] = 9.5
    view = picture(e, g)
    assert view is not None
    assert (view["shape"], view["dtype"], view["total"], view["mismatched"]) == ([2, 3], "float32", 6, 1)
    assert view["window"] == {"rows": [0, 2], "cols": [0, 3], "whole": True}
    assert view["first_mismatches"] == [[1, 2]] and view["max_abs_error"] == 4.5
    assert view["max_rel_error"] == 4.5 / 5
    assert view["expected"]["columns"] == ["0", "1", "2"]
    assert [r["label"] for r in view["got"]["rows"]] == ["[0, :]", "[1, :]"]
    assert marked(view["expected"]) == marked(view["got"]) == [("[1, :]", 2)]
    assert [c["v"] for c in cells(view["expected"])] == ["0", "1", "2", "3", "4", "5"]
    assert cells(view["got"])[5] == {"v": "9.5", "bad": True}


def test_a_large_tensor_gets_a_bounded_window_around_its_worst_element() -> None:
    e = torch.randn(300, 500, generator=torch.Generator().manual_seed(1))
    g = e.clone()
    g[0, 0] += 0.01
    g[200, 499] += 50.0  # the worst
    view = picture(e, g)
    assert view is not None
    assert view["mismatched"] == 2 and view["first_mismatches"] == [[0, 0], [200, 499]]
    assert view["window"] == {"rows": [196, 204], "cols": [492, 500], "whole": False}
    assert len(cells(view["expected"])) == len(cells(view["got"])) == 64
    assert ("[200, :]", 7) in marked(view["got"])
    assert len(json.dumps(view)) < 8_000  # bounded whatever the tensor's size
    # The count is the comparison's own.
    assert view["max_abs_error"] == float((g.double() - e.double()).abs().max())


def test_a_1d_tensor_is_wrapped_in_rows_of_eight() -> None:
    e = torch.arange(20, dtype=torch.int64)
    g = e.clone()
    g[17] = -1
    view = picture(e, g)
    assert view is not None and view["exact"] is True
    assert [r["label"] for r in view["expected"]["rows"]] == ["[0]", "[8]", "[16]"]
    assert view["expected"]["columns"][:2] == ["+0", "+1"]
    assert marked(view["got"]) == [("[16]", 1)]
    assert view["got"]["rows"][2]["cells"][1]["v"] == "-1"
    assert view["got"]["rows"][2]["cells"][4:] == [{"v": "", "bad": False}] * 4  # padding


def test_bfloat16_marks_only_what_its_tolerance_refuses_and_shows_distinct_values() -> None:
    e = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.bfloat16)
    g = e.clone()
    g[1] = torch.tensor(2.015625, dtype=torch.bfloat16)  # one bf16 step: within rtol 1.6e-2
    g[3] = torch.tensor(4.125, dtype=torch.bfloat16)  # four steps at 4: beyond it
    view = picture(e, g)
    assert view is not None and view["dtype"] == "bfloat16" and view["rtol"] == 1.6e-2
    assert view["mismatched"] == 1 and marked(view["got"]) == [("[0]", 3)]
    e_cell, g_cell = cells(view["expected"])[3], cells(view["got"])[3]
    assert e_cell["v"] != g_cell["v"] and g_cell["v"] == "4.125"


def test_differing_values_get_the_digits_that_tell_them_apart() -> None:
    e = torch.tensor([1.0], dtype=torch.float64)
    g = e + 1e-6  # beyond float64's tolerance, the same at six digits
    view = picture(e, g)
    assert view is not None
    e_text, g_text = cells(view["expected"])[0]["v"], cells(view["got"])[0]["v"]
    assert e_text != g_text and float(g_text) != 1.0


def test_shapes_that_differ_show_both_sides_and_compare_no_element() -> None:
    e = torch.ones(2, 3)
    g = torch.ones(3, 2)
    view = picture(e, g)
    assert view is not None
    assert (view["shape"], view["got_shape"], view["mismatched"]) == ([2, 3], [3, 2], None)
    assert view["max_abs_error"] is None and view["first_mismatches"] == []
    assert len(view["expected"]["rows"]) == 2 and len(view["got"]["rows"]) == 3
    assert not marked(view["expected"]) and not marked(view["got"])


def test_a_dtype_that_differs_still_marks_the_values_that_differ() -> None:
    e = torch.tensor([1.0, 2.0])
    g = torch.tensor([1.0, 2.5], dtype=torch.float64)
    view = picture(e, g)
    assert view is not None and (view["dtype"], view["got_dtype"]) == ("float32", "float64")
    assert view["mismatched"] == 1 and marked(view["got"]) == [("[0]", 1)]


def test_nan_and_inf_are_marked_and_shown_as_words() -> None:
    e = torch.tensor([0.0, 1.0, math.inf, 3.0])
    g = torch.tensor([math.nan, 1.0, math.inf, -math.inf])
    view = picture(e, g)
    assert view is not None and view["max_rel_error"] is None  # only 0 or non-finite differ
    # Inf where expected is Inf still counts without allow_nan (the comparison's rule).
    assert marked(view["got"]) == [("[0]", 0), ("[0]", 2), ("[0]", 3)]
    assert [c["v"] for c in cells(view["got"])] == ["nan", "1", "inf", "-inf"]
    allowed = Case("c", "f", lambda g: Call(), public=True, allow_nan=True)
    view = picture(e, g, allowed)
    assert view is not None and marked(view["got"]) == [("[0]", 0), ("[0]", 3)]


def test_no_picture_unless_asked_for_nor_for_a_value_that_is_no_tensor() -> None:
    assert picture(torch.zeros(2), torch.ones(2), show=False) is None
    obs = {"kind": "return", "inputs_modified": [], "grads": None}
    outcome = compare({**obs, "value": 1}, {**obs, "value": 2}, PUBLIC, {}, show=True)
    assert outcome.verdict == Verdict.WA and outcome.compare is None


def test_the_json_of_a_test_gains_compare_only_when_it_has_one() -> None:
    plain = TestResult("t", True, Verdict.WA, "m", None, 1.0, {"index": [0]})
    assert list(plain.to_json()) == [
        "name", "public", "verdict", "message", "wrong_kind", "time_ms", "details"
    ]
    assert TestResult.from_json(plain.to_json()) == plain
    shown = TestResult("t", True, Verdict.WA, "m", compare={"path": "output"})
    assert shown.to_json()["compare"] == {"path": "output"}
    assert TestResult.from_json(shown.to_json()) == shown


def _no_values(test: dict[str, Any]) -> None:
    assert "compare" not in test
    for key in ("expected", "got", "index"):
        assert key not in (test.get("details") or {}), test


def test_a_failing_hidden_test_never_carries_values(
    tagged_wrong_results: dict[str, JudgeResult],
) -> None:
    """The toy's WA/hidden_only.py fails only the hidden "large"; WA/ignores_alpha.py fails the
    public "small" too. Only the public ones carry expected beside actual."""
    result = tagged_wrong_results["WA/hidden_only.py"]
    (hidden,) = [t for t in result.tests if not t.public and t.verdict == Verdict.WA]
    assert hidden.compare is None
    assert all(t.compare is None for t in result.tests)
    shown = result_for_student(result, FeedbackPolicy.CATEGORY).to_json()
    for test in shown["tests"]:
        if not test["public"]:
            _no_values(test)
    assert '"compare"' not in json.dumps(shown)

    result = tagged_wrong_results["WA/ignores_alpha.py"]
    small = next(t for t in result.tests if t.name == "small")
    assert small.verdict == Verdict.WA and small.compare is not None
    assert small.compare["path"] == "output" and small.compare["mismatched"] >= 1
    failing_hidden = [t for t in result.tests if not t.public and t.verdict == Verdict.WA]
    assert failing_hidden and all(t.compare is None for t in failing_hidden)
    for policy in FeedbackPolicy:  # even the FULL policy has no picture of a hidden test
        for test in result_for_student(result, policy).to_json()["tests"]:
            assert ("compare" in test) == (test["public"] and test["verdict"] == "WA")


def test_a_hidden_test_is_shown_without_a_picture_even_if_one_was_stored() -> None:
    stored = TestResult("h", False, Verdict.WA, "m", compare={"expected": {"rows": []}})
    for policy in FeedbackPolicy:
        assert for_student(stored, policy).compare is None
    public = TestResult("p", True, Verdict.WA, "m", compare={"path": "output"})
    assert for_student(public, FeedbackPolicy.VERDICT) == public


def test_a_public_gradient_mismatch_shows_the_gradient() -> None:
    case = Case("c", "f", lambda g: Call(), public=True, grad_wrt=(0,))
    obs = {"kind": "return", "inputs_modified": [], "value": torch.zeros(2)}
    outcome = compare(
        {**obs, "grads": [torch.ones(2)]},
        {**obs, "value": WireTensor(torch.zeros(2), "torch.Tensor"),
         "grads": [WireTensor(torch.tensor([1.0, 3.0]), "torch.Tensor")]},
        case, {"float32": Tolerance(atol=1e-5, rtol=1e-5)}, show=True,
    )
    assert outcome.compare is not None
    assert outcome.compare["path"] == "grad of argument 0" and outcome.compare["mismatched"] == 1

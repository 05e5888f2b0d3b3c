"""Comparison of the student's observation with the reference's: one verdict per test.

Order: raised vs returned, then structure and Python types (a tensor must be exactly
``torch.Tensor``, never a subclass), then shape, dtype, NaN/Inf, values (per-dtype atol/rtol,
torch.testing's defaults unless the package overrides them; bit-for-bit for ``exact`` cases,
integers and bools), then gradients, then whether the inputs were modified in place.
Runs in the trusted grader only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from sandbox.grader.compare_view import side_by_side
from sandbox.grader.compare_view import unravel as _unravel
from sandbox.grader.contracts import Verdict, WrongKind
from sandbox.grader.package import Tolerance
from sandbox.problem import Case
from sandbox.runner.wire import DTYPE_NAMES, Unsupported, WireTensor
from sandbox.runner.wire_decode import strip_classes

# torch.testing.assert_close defaults, by dtype name.
DEFAULT_TOLERANCES: dict[str, Tolerance] = {
    "float16": Tolerance(atol=1e-5, rtol=1e-3),
    "bfloat16": Tolerance(atol=1e-5, rtol=1.6e-2),
    "float32": Tolerance(atol=1e-5, rtol=1.3e-6),
    "float64": Tolerance(atol=1e-7, rtol=1e-7),
    "complex64": Tolerance(atol=1e-5, rtol=1.3e-6),
    "complex128": Tolerance(atol=1e-7, rtol=1e-7),
}
PY_FLOAT = "float64"  # tolerance used for plain Python floats

MEMORY_MESSAGES = ("can't allocate memory", "not enough memory", "out of memory")


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    wrong_kind: WrongKind | None = None
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    # Expected beside actual (sandbox/grader/compare_view.py), only when asked for (``show``).
    compare: dict[str, Any] | None = None


AC = Outcome(Verdict.AC)


class _Mismatch(Exception):
    def __init__(self, kind: WrongKind, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = details or {}
        # The wrong tensor pair and where it sits, for the side-by-side view: (path, expected, got).
        self.shown: tuple[str, torch.Tensor, torch.Tensor] | None = None


def is_memory_error(obs: dict[str, Any]) -> bool:
    mro = obs.get("mro")
    if not isinstance(mro, list):
        mro = []
    message = str(obs.get("message", "")).lower()
    return (
        "MemoryError" in mro
        or "OutOfMemoryError" in mro
        or any(m in message for m in MEMORY_MESSAGES)
    )


def compare(
    expected: dict[str, Any],
    got: dict[str, Any],
    case: Case,
    tolerances: dict[str, Tolerance],
    show: bool = False,
) -> Outcome:
    """``expected``: the reference's observation (plain values); ``got``: the student's, decoded
    with ``keep_class`` (tensors as WireTensor). Both as returned by wire.execute_call.
    ``show``: a wrong tensor also gets its expected-beside-actual picture (``Outcome.compare``):
    the grader asks for it for public tests only, never for a hidden one's values."""
    if got.get("kind") == "raise" and is_memory_error(got) and not is_memory_error(expected):
        return Outcome(Verdict.MLE, None, "your code ran out of memory", {})
    if expected["kind"] == "raise":
        if got.get("kind") != "raise":
            return Outcome(
                Verdict.WA,
                WrongKind.DID_NOT_RAISE,
                f"expected your function to raise {expected['type']}, but it returned",
            )
        if expected["type"] in (got.get("mro") or []):
            return AC
        return Outcome(
            Verdict.WA,
            WrongKind.WRONG_EXCEPTION,
            f"expected {expected['type']}, but your function raised {got.get('type')}",
            {"traceback": got.get("traceback", "")},
        )
    if got.get("kind") == "raise":
        return Outcome(
            Verdict.RE,
            WrongKind.RAISED,
            f"{got.get('type')}: {got.get('message', '')}",
            {"traceback": got.get("traceback", "")},
        )
    if got.get("kind") != "return":
        raise ValueError("malformed observation")
    try:
        if case.check is not None:
            message = case.check(expected["value"], strip_classes(got.get("value")))
            if message:
                raise _Mismatch(WrongKind.VALUE, str(message))
            _check_types_only(expected["value"], got.get("value"), "output")
        else:
            _compare_value(expected["value"], got.get("value"), "output", case, tolerances)
        if case.grad_wrt:
            exp_grads = expected.get("grads") or []
            got_grads = got.get("grads")
            if not isinstance(got_grads, list) or len(got_grads) != len(exp_grads):
                raise _Mismatch(WrongKind.GRAD, "gradients are missing")
            for index, eg, gg in zip(case.grad_wrt, exp_grads, got_grads, strict=True):
                try:
                    _compare_value(eg, gg, f"grad of argument {index}", case, tolerances)
                except _Mismatch as exc:
                    grad = _Mismatch(WrongKind.GRAD, exc.message, exc.details)
                    grad.shown = exc.shown
                    raise grad from None
    except _Mismatch as exc:
        view = _picture(exc, case, tolerances) if show else None
        return Outcome(Verdict.WA, exc.kind, exc.message, exc.details, view)
    modified = got.get("inputs_modified")
    if not isinstance(modified, list):
        raise ValueError("malformed observation")
    if modified:
        return Outcome(
            Verdict.WA,
            WrongKind.INPUTS_MODIFIED,
            "your function modified its inputs in place: " + ", ".join(map(str, modified[:5])),
        )
    return AC


def _describe(value: Any) -> str:
    if isinstance(value, WireTensor):
        return f"a {value.cls}" if value.cls != "torch.Tensor" else "a tensor"
    if isinstance(value, torch.Tensor):
        return "a tensor"
    if isinstance(value, Unsupported):
        return f"a {value.type_name}"
    if isinstance(value, list | tuple):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


def _check_types_only(expected: Any, got: Any, path: str) -> None:
    """Tensor subclasses and unsupported values are refused even with a custom check."""
    if isinstance(got, Unsupported):
        raise _Mismatch(WrongKind.TYPE, f"{path}: unsupported value {got.type_name}")
    if isinstance(got, WireTensor) and got.cls != "torch.Tensor":
        raise _Mismatch(WrongKind.TYPE, f"{path}: expected a torch.Tensor, got {got.cls}")
    if isinstance(got, list | tuple):
        for i, item in enumerate(got):
            _check_types_only(None, item, f"{path}[{i}]")
    if isinstance(got, dict):
        for key, item in got.items():
            _check_types_only(None, item, f"{path}[{key!r}]")


def _compare_value(
    expected: Any, got: Any, path: str, case: Case, tols: dict[str, Tolerance]
) -> None:
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, WireTensor) or got.cls != "torch.Tensor":
            raise _Mismatch(
                WrongKind.TYPE, f"{path}: expected a torch.Tensor, got {_describe(got)}"
            )
        try:
            _compare_tensor(expected, got.tensor, path, case, tols)
        except _Mismatch as exc:
            exc.shown = (path, expected, got.tensor)
            raise
        return
    if isinstance(got, Unsupported):
        raise _Mismatch(
            WrongKind.TYPE, f"{path}: expected {_describe(expected)}, got {_describe(got)}"
        )
    if type(expected) in (list, tuple):
        if type(got) is not type(expected) or len(got) != len(expected):
            raise _Mismatch(
                WrongKind.TYPE, f"{path}: expected {_describe(expected)}, got {_describe(got)}"
            )
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            _compare_value(e, g, f"{path}[{i}]", case, tols)
        return
    if type(expected) is dict:
        if type(got) is not dict or set(got) != set(expected):
            raise _Mismatch(WrongKind.TYPE, f"{path}: expected a dict with keys {sorted(expected)}")
        for key in expected:
            _compare_value(expected[key], got[key], f"{path}[{key!r}]", case, tols)
        return
    if type(got) is not type(expected):
        raise _Mismatch(
            WrongKind.TYPE, f"{path}: expected {_describe(expected)}, got {_describe(got)}"
        )
    if type(expected) is float:
        _compare_tensor(
            torch.tensor(expected, dtype=torch.float64),
            torch.tensor(got, dtype=torch.float64),
            path,
            case,
            tols,
        )
        return
    if expected != got:
        raise _Mismatch(WrongKind.VALUE, f"{path}: expected {expected!r:.200}, got {got!r:.200}")


def _picture(exc: _Mismatch, case: Case, tols: dict[str, Tolerance]) -> dict[str, Any] | None:
    """The side-by-side picture of the wrong tensor of ``exc``; None when it is no tensor's."""
    if exc.shown is None:
        return None
    path, expected, got = exc.shown
    name = DTYPE_NAMES.get(expected.dtype, str(expected.dtype))
    return side_by_side(
        expected, got, path=path, tol=tolerance_for(name, tols), exact=case.exact,
        allow_nan=case.allow_nan,
    )


def tolerance_for(name: str, tols: dict[str, Tolerance]) -> Tolerance:
    """The tolerance of a dtype (by name): the package's, else the default, else float64's."""
    return tols.get(name) or DEFAULT_TOLERANCES.get(name) or DEFAULT_TOLERANCES["float64"]


def _compare_tensor(
    expected: torch.Tensor, got: torch.Tensor, path: str, case: Case, tols: dict[str, Tolerance]
) -> None:
    if tuple(got.shape) != tuple(expected.shape):
        raise _Mismatch(
            WrongKind.SHAPE,
            f"{path}: expected shape {list(expected.shape)}, got {list(got.shape)}",
            {"expected_shape": list(expected.shape), "got_shape": list(got.shape)},
        )
    if got.dtype != expected.dtype:
        exp_name, got_name = DTYPE_NAMES.get(expected.dtype), DTYPE_NAMES.get(got.dtype)
        raise _Mismatch(
            WrongKind.DTYPE,
            f"{path}: expected dtype {exp_name}, got {got_name}",
            {"expected_dtype": exp_name, "got_dtype": got_name},
        )
    expected, got = expected.detach().cpu(), got.detach().cpu()
    if expected.numel() == 0:
        return
    name = DTYPE_NAMES.get(expected.dtype, str(expected.dtype))
    floating = expected.is_floating_point() or expected.is_complex()
    if case.exact or not floating:
        if expected.is_floating_point() or expected.is_complex():
            same = torch.equal(
                expected.contiguous().reshape(-1).view(torch.uint8),
                got.contiguous().reshape(-1).view(torch.uint8),
            )
        else:
            same = torch.equal(expected, got)
        if not same:
            _raise_worst(expected, got, path, torch.zeros(()), torch.zeros(()), exact=True)
        return
    if expected.is_complex():
        expected, got = torch.view_as_real(expected), torch.view_as_real(got)
    e64, g64 = expected.to(torch.float64), got.to(torch.float64)
    e_bad, g_bad = ~torch.isfinite(e64), ~torch.isfinite(g64)
    if bool(e_bad.any()) or bool(g_bad.any()):
        same_pattern = torch.equal(torch.isnan(e64), torch.isnan(g64)) and torch.equal(
            torch.where(torch.isinf(e64), e64, 0.0), torch.where(torch.isinf(g64), g64, 0.0)
        )
        if not case.allow_nan or not same_pattern:
            where = (e_bad != g_bad) | (e_bad & g_bad)
            index = _unravel(int(torch.nonzero(where.reshape(-1))[0]), tuple(expected.shape))
            raise _Mismatch(
                WrongKind.NAN,
                f"{path}: NaN/Inf mismatch at index {list(index)}: expected "
                f"{e64[index].item()!r}, got {g64[index].item()!r}",
                {
                    "index": list(index),
                    "nonfinite_got": int(g_bad.sum()),
                    "nonfinite_expected": int(e_bad.sum()),
                },
            )
        finite = ~e_bad
        e64, g64 = torch.where(finite, e64, 0.0), torch.where(finite, g64, 0.0)
    tol = tolerance_for(name, tols)
    diff = (g64 - e64).abs()
    allowed = tol.atol + tol.rtol * e64.abs()
    bad = diff > allowed
    if bool(bad.any()):
        _raise_worst(e64, g64, path, diff / allowed, bad, exact=False, tol=tol)


def _raise_worst(
    expected: torch.Tensor,
    got: torch.Tensor,
    path: str,
    ratio: torch.Tensor,
    bad: torch.Tensor,
    *,
    exact: bool,
    tol: Tolerance | None = None,
) -> None:
    if exact:
        e, g = expected.reshape(-1), got.reshape(-1)
        if e.is_floating_point() or e.is_complex():
            e8 = e.contiguous().view(torch.uint8).reshape(e.numel(), -1)
            g8 = g.contiguous().view(torch.uint8).reshape(g.numel(), -1)
            bad_flat = (e8 != g8).any(dim=1)
        else:
            bad_flat = e != g
        ef = e.to(torch.float64) if not e.is_complex() else e.abs().to(torch.float64)
        gf = g.to(torch.float64) if not g.is_complex() else g.abs().to(torch.float64)
        score = torch.where(bad_flat, (gf - ef).abs() + 1.0, torch.zeros_like(ef))
        flat = int(torch.argmax(score))
        count = int(bad_flat.sum())
    else:
        flat = int(torch.argmax(ratio.reshape(-1)))
        count = int(bad.sum())
    index = _unravel(flat, tuple(expected.shape))
    exp_v, got_v = expected.reshape(-1)[flat].item(), got.reshape(-1)[flat].item()
    details: dict[str, Any] = {
        "index": list(index),
        "expected": _jsonable(exp_v),
        "got": _jsonable(got_v),
        "mismatched": count,
        "total": expected.numel(),
    }
    if not isinstance(exp_v, complex) and not isinstance(got_v, complex):
        abs_err = abs(float(got_v) - float(exp_v))
        details["abs_error"] = abs_err
        details["rel_error"] = abs_err / abs(float(exp_v)) if float(exp_v) else None
    if tol is not None:
        details["atol"], details["rtol"] = tol.atol, tol.rtol
    raise _Mismatch(
        WrongKind.VALUE,
        f"{path}: {count} of {expected.numel()} elements differ"
        + (" (exact comparison)" if exact else ""),
        details,
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, complex):
        return [value.real, value.imag]
    if isinstance(value, float) and value != value:
        return "nan"
    return value

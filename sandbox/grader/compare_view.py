"""Expected beside actual: the bounded picture of one wrong tensor of a PUBLIC test.

``side_by_side`` turns the reference's tensor and the student's into a small JSON object the
result page draws as two grids (the differing elements marked) and a summary: shapes, dtypes,
how many elements differ, the largest absolute and relative errors, the first differing
indices. Never more than ``MAX_ROWS`` x ``MAX_COLS`` values per side: a tensor of up to 64
elements is shown whole, a larger one as the window around its worst element.

A value of a hidden test must never reach a student, so the grader asks for this picture only
for public tests (sandbox/grader/compare.py's ``show``). Which elements differ follows the rules of
sandbox/grader/compare.py (bit-for-bit for exact cases and integers, per-dtype atol/rtol otherwise,
NaN/Inf matching only where the case allows it). Runs in the trusted grader only.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from sandbox.grader.package import Tolerance
from sandbox.runner.wire import DTYPE_NAMES

MAX_ROWS = 8
MAX_COLS = 8  # a 1-D tensor is wrapped in rows of this many elements
FIRST_MISMATCHES = 5
_DIGITS = 6  # significant digits shown, more where two differing values would read the same


def side_by_side(
    expected: torch.Tensor,
    got: torch.Tensor,
    *,
    path: str,
    tol: Tolerance,
    exact: bool,
    allow_nan: bool,
) -> dict[str, Any]:
    """The picture of ``got`` against ``expected`` (see the module's docstring); its keys:
    path, shape, got_shape, dtype, got_dtype, total, mismatched, max_abs_error,
    max_rel_error, first_mismatches, atol, rtol, exact, window (``{"rows": [a, b], "cols":
    [c, d], "whole": bool}``), expected and got (grids: ``{"columns": [...], "rows":
    [{"label": ..., "cells": [{"v": text, "bad": bool}]}]}``). ``mismatched`` and the errors
    are None where the shapes differ (no element is compared then)."""
    expected, got = expected.detach().cpu(), got.detach().cpu()
    same_shape = tuple(expected.shape) == tuple(got.shape)
    summary: dict[str, Any] = {
        "path": path[:200],
        "shape": list(expected.shape),
        "got_shape": list(got.shape),
        "dtype": DTYPE_NAMES.get(expected.dtype, str(expected.dtype)),
        "got_dtype": DTYPE_NAMES.get(got.dtype, str(got.dtype)),
        "total": expected.numel(),
        "mismatched": None,
        "max_abs_error": None,
        "max_rel_error": None,
        "first_mismatches": [],
        "atol": tol.atol,
        "rtol": tol.rtol,
        "exact": exact or not _floating(expected),
    }
    bad = None
    if same_shape:
        bad = differing(expected, got, tol=tol, exact=exact, allow_nan=allow_nan)
        flat_bad = bad.reshape(-1)
        summary["mismatched"] = int(flat_bad.sum())
        firsts = torch.nonzero(flat_bad).reshape(-1)[:FIRST_MISMATCHES].tolist()
        summary["first_mismatches"] = [list(unravel(i, tuple(expected.shape))) for i in firsts]
        summary["max_abs_error"], summary["max_rel_error"] = _errors(expected, got, bad)
    focus = _focus(expected, got, bad)
    rows, cols = _window(expected, focus)
    summary["window"] = {
        "rows": list(rows),
        "cols": list(cols),
        "whole": rows == (0, _grid_size(expected)[0]) and cols == (0, _grid_size(expected)[1]),
    }
    if same_shape:
        summary["expected"], summary["got"] = _grids(expected, got, bad, rows, cols)
    else:  # each side its own window, around its first element: nothing is compared
        summary["expected"] = _grids(expected, expected, None, rows, cols)[0]
        g_rows, g_cols = _window(got, 0)
        summary["got"] = _grids(got, got, None, g_rows, g_cols)[0]
        summary["got_window"] = {"rows": list(g_rows), "cols": list(g_cols)}
    return summary


def _floating(t: torch.Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def differing(
    expected: torch.Tensor, got: torch.Tensor, *, tol: Tolerance, exact: bool, allow_nan: bool
) -> torch.Tensor:
    """A bool tensor of ``expected``'s shape: True where the element counts as wrong by the
    comparison's rules (see the module's docstring). Shapes must be equal; dtypes may differ
    (the values are then compared as float64 with the expected dtype's tolerance)."""
    if expected.numel() == 0:
        return torch.zeros(expected.shape, dtype=torch.bool)
    if expected.dtype == got.dtype and (exact or not _floating(expected)):
        if _floating(expected):
            size = expected.element_size()
            e8 = expected.contiguous().reshape(-1).view(torch.uint8).reshape(-1, size)
            g8 = got.contiguous().reshape(-1).view(torch.uint8).reshape(-1, size)
            return (e8 != g8).any(dim=1).reshape(expected.shape)
        return expected != got
    e, g = expected, got
    if e.is_complex() or g.is_complex():
        e, g = torch.view_as_real(e.to(torch.complex128)), torch.view_as_real(g.to(torch.complex128))
    e64, g64 = e.to(torch.float64), g.to(torch.float64)
    e_bad, g_bad = ~torch.isfinite(e64), ~torch.isfinite(g64)
    same_special = (torch.isnan(e64) & torch.isnan(g64)) | (torch.isinf(e64) & (e64 == g64))
    special = (e_bad != g_bad) | (e_bad & g_bad & ~(same_special & allow_nan))
    finite = ~e_bad & ~g_bad
    e0, g0 = torch.where(finite, e64, 0.0), torch.where(finite, g64, 0.0)
    if exact or not _floating(expected):
        values = finite & (e0 != g0)
    else:
        values = finite & ((g0 - e0).abs() > tol.atol + tol.rtol * e0.abs())
    bad = special | values
    if e is not expected:  # complex: an element is wrong when its real or imaginary part is
        bad = bad.any(dim=-1)
    return bad


def _errors(
    expected: torch.Tensor, got: torch.Tensor, bad: torch.Tensor
) -> tuple[float | None, float | None]:
    """The largest absolute error over the elements finite on both sides, and the largest
    relative one over the differing elements among them whose expected value is not zero
    (None when there is none: every differing element is expected to be 0, or non-finite)."""
    if expected.numel() == 0:
        return None, None
    if expected.is_complex() or got.is_complex():
        e64 = expected.to(torch.complex128)
        diff, scale = (got.to(torch.complex128) - e64).abs(), e64.abs()
    else:
        e64 = expected.to(torch.float64)
        diff, scale = (got.to(torch.float64) - e64).abs(), e64.abs()
    ok = torch.isfinite(diff)
    if not bool(ok.any()):
        return None, None
    abs_err = float(diff[ok].max())
    rel_ok = ok & (scale > 0) & bad
    rel_err = float((diff[rel_ok] / scale[rel_ok]).max()) if bool(rel_ok.any()) else None
    return abs_err, rel_err


def _focus(expected: torch.Tensor, got: torch.Tensor, bad: torch.Tensor | None) -> int:
    """The flat index the window is centred on: the worst differing element (a non-finite
    mismatch first, then the largest error), else the first element."""
    if bad is None or not bool(bad.any()):
        return 0
    flat_bad = bad.reshape(-1)
    score = (_as_real(got).reshape(-1) - _as_real(expected).reshape(-1)).abs()
    score = torch.where(torch.isnan(score), math.inf, score)
    return int(torch.argmax(torch.where(flat_bad, score, -1.0)))


def _as_real(t: torch.Tensor) -> torch.Tensor:
    """float64 values of ``t`` (a complex one's magnitudes)."""
    return t.to(torch.complex128).abs() if t.is_complex() else t.to(torch.float64)


def _grid_size(t: torch.Tensor) -> tuple[int, int]:
    """Rows and columns of the 2-D view of ``t``: its last dimension by everything before
    it; a 0-D or 1-D tensor wrapped in rows of MAX_COLS."""
    if t.dim() >= 2:
        cols = t.shape[-1]
        return (t.numel() // cols if cols else 0), cols
    n = t.numel()
    cols = min(n, MAX_COLS)
    return (math.ceil(n / cols) if cols else 0), cols


def _window(t: torch.Tensor, focus: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The rows and columns (start, stop) shown of ``t``: at most MAX_ROWS x MAX_COLS, around
    the flat index ``focus``."""
    n_rows, n_cols = _grid_size(t)
    if n_cols == 0:
        return (0, n_rows), (0, 0)
    row, col = divmod(focus, n_cols)
    return _around(row, n_rows, MAX_ROWS), _around(col, n_cols, MAX_COLS)


def _around(at: int, size: int, width: int) -> tuple[int, int]:
    start = min(max(0, at - width // 2), max(0, size - width))
    return start, min(size, start + width)


def _grids(
    expected: torch.Tensor,
    got: torch.Tensor,
    bad: torch.Tensor | None,
    rows: tuple[int, int],
    cols: tuple[int, int],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The window's values of both sides as grids (``got`` must have ``expected``'s shape)."""
    _, n_cols = _grid_size(expected)
    matrix = expected.dim() >= 2
    columns = [str(c) if matrix else f"+{c}" for c in range(*cols)]
    e_flat, g_flat = expected.reshape(-1), got.reshape(-1)
    b_flat = bad.reshape(-1) if bad is not None else None
    e_rows: list[dict[str, Any]] = []
    g_rows: list[dict[str, Any]] = []
    for r in range(*rows):
        e_cells, g_cells = [], []
        for c in range(*cols):
            flat = r * n_cols + c
            if flat >= expected.numel():  # the last, partial row of a wrapped 1-D tensor
                e_cells.append({"v": "", "bad": False})
                g_cells.append({"v": "", "bad": False})
                continue
            is_bad = bool(b_flat[flat]) if b_flat is not None else False
            ev, gv = _texts(e_flat[flat].item(), g_flat[flat].item(), is_bad)
            e_cells.append({"v": ev, "bad": is_bad})
            g_cells.append({"v": gv, "bad": is_bad})
        label = _row_label(expected, r, n_cols)
        e_rows.append({"label": label, "cells": e_cells})
        g_rows.append({"label": label, "cells": g_cells})
    return {"columns": columns, "rows": e_rows}, {"columns": columns, "rows": g_rows}


def _row_label(t: torch.Tensor, row: int, n_cols: int) -> str:
    if t.dim() == 0:
        return "[]"
    if t.dim() == 1:
        return f"[{row * n_cols}]"
    lead = unravel(row, tuple(t.shape[:-1]))
    return "[" + ", ".join(map(str, lead)) + ", :]"


def _texts(e: Any, g: Any, bad: bool) -> tuple[str, str]:
    """Both values as text; a differing pair gets the digits that tell them apart."""
    digits = _DIGITS
    ev, gv = _text(e, digits), _text(g, digits)
    while bad and ev == gv and digits < 17:
        digits += 2
        ev, gv = _text(e, digits), _text(g, digits)
    return ev, gv


def _text(value: Any, digits: int) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, complex):
        return f"{value.real:.{digits}g}{value.imag:+.{digits}g}j"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.{digits}g}"
    return str(value)


def unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The multi-index of the flat (row-major) index ``flat`` in ``shape``."""
    index = []
    for dim in reversed(shape):
        index.append(flat % dim if dim else 0)
        flat = flat // dim if dim else 0
    return tuple(reversed(index))

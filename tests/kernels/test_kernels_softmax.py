"""kernels.softmax (problem 79's reference) against a loop over Python floats, and the Triton
baseline against it where Triton is installed."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.softmax import softmax_rows
from tests.conftest import require_triton

NEG = float("-inf")


def _loop_softmax(row: list[float]) -> list[float]:
    """The definition, one row, in double precision; a row of only -inf gives zeros."""
    top = max(row)
    if top == NEG:
        return [0.0] * len(row)
    e = [math.exp(v - top) for v in row]
    return [v / sum(e) for v in e]


def _rows() -> torch.Tensor:
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(6, 37, generator=gen) * 3
    x[1] = x[1] * 200  # logits in the hundreds
    x[2] = x[2] - 300  # every exp(x) underflows without the max subtracted
    x[3, ::2] = NEG
    x[4] = NEG
    return x


def test_softmax_rows_matches_the_definition() -> None:
    x = _rows()
    got = softmax_rows(x)
    assert got.dtype == torch.float32 and bool(torch.isfinite(got).all())
    for r in range(x.shape[0]):
        expected = torch.tensor(_loop_softmax(x[r].tolist()), dtype=torch.float32)
        torch.testing.assert_close(got[r], expected, atol=1e-7, rtol=1e-5)
    assert torch.equal(got[4], torch.zeros(37))
    assert torch.equal(got[3, ::2], torch.zeros(19))
    finite = [0, 1, 2, 3, 5]
    torch.testing.assert_close(got[finite].sum(1), torch.ones(5))
    # Where torch's own softmax is defined (no row of only -inf) they agree.
    torch.testing.assert_close(got[finite], torch.softmax(x[finite], dim=1))


def test_softmax_rows_views_and_half_precision() -> None:
    gen = torch.Generator().manual_seed(5)
    wide = torch.randn(5, 50, generator=gen) * 4
    view = wide[:, 7:40]
    assert view.stride(0) == 50
    torch.testing.assert_close(softmax_rows(view), softmax_rows(view.contiguous()), rtol=0, atol=0)
    t = torch.randn(30, 4, generator=gen).t()
    torch.testing.assert_close(softmax_rows(t), torch.softmax(t, dim=1))
    for dtype in (torch.float16, torch.bfloat16):
        h = view.to(dtype)
        got = softmax_rows(h)
        assert got.dtype == dtype
        assert torch.equal(got, torch.softmax(h.float(), dim=1).to(dtype))
    with pytest.raises(ValueError):
        softmax_rows(torch.zeros(3))
    assert softmax_rows(torch.zeros(4, 0)).shape == (4, 0)


def test_triton_softmax_matches_the_reference_where_triton_is_installed() -> None:
    require_triton()
    from kernels.triton_softmax import softmax  # sets TRITON_INTERPRET without a GPU

    x = _rows()
    torch.testing.assert_close(softmax(x), softmax_rows(x), atol=1e-6, rtol=1e-5)
    gen = torch.Generator().manual_seed(8)
    long = torch.randn(2, 2500, generator=gen)  # several blocks of 1024 and a partial one
    torch.testing.assert_close(softmax(long), softmax_rows(long), atol=1e-6, rtol=1e-5)
    view = (torch.randn(4, 90, generator=gen) * 5)[:, 3:80]
    torch.testing.assert_close(softmax(view), softmax_rows(view), atol=1e-6, rtol=1e-5)
    half = view.half()
    assert torch.equal(softmax(half).isnan(), torch.zeros(4, 77, dtype=torch.bool))
    torch.testing.assert_close(softmax(half), softmax_rows(half), atol=1e-6, rtol=2e-3)

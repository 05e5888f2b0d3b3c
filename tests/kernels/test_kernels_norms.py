"""kernels.norms (problems 65-66, 80) and kernels.triton_rmsnorm (problem 80) against float64 autograd and slow loop versions."""

from __future__ import annotations

import pytest
import torch

from kernels.norms import (
    add_rms_norm,
    add_rms_norm_backward,
    layer_norm_backward,
    layer_norm_backward_float32,
    rms_norm,
)
from tests.conftest import require_triton


def _loop_rms(h: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    rows = h.double().reshape(-1, h.shape[-1])
    out = torch.stack([r / (float((r * r).sum()) / r.numel() + eps) ** 0.5 for r in rows])
    return (out * w.double()).reshape(h.shape)


def test_add_rms_norm_matches_a_row_loop_and_returns_the_stream() -> None:
    gen = torch.Generator().manual_seed(3)
    x, r = torch.randn(2, 5, 16, generator=gen), torch.randn(2, 5, 16, generator=gen)
    w = torch.randn(16, generator=gen)
    before = r.clone()
    out, h = add_rms_norm(x, r, w, 1e-6)
    torch.testing.assert_close(h, x + r)
    torch.testing.assert_close(out.double(), _loop_rms(x + r, w, 1e-6))
    assert torch.equal(r, before)  # nothing in place


def test_add_rms_norm_survives_float16_squares_beyond_its_range() -> None:
    x = torch.full((1, 8), 300.0, dtype=torch.float16)
    out, h = add_rms_norm(x, x, torch.ones(8, dtype=torch.float16))
    assert out.dtype == torch.float16 and h.dtype == torch.float16
    torch.testing.assert_close(out.float(), torch.ones(1, 8))


def test_add_rms_norm_backward_matches_float64_autograd() -> None:
    gen = torch.Generator().manual_seed(4)
    h = torch.randn(3, 4, 12, generator=gen, dtype=torch.float64)
    w = torch.randn(12, generator=gen, dtype=torch.float64)
    dy, dh_in = torch.randn(3, 4, 12, generator=gen), torch.randn(3, 4, 12, generator=gen)
    hh, ww = h.clone().requires_grad_(True), w.clone().requires_grad_(True)
    out = hh * torch.rsqrt(hh.pow(2).mean(-1, keepdim=True) + 1e-6) * ww
    (out * dy.double()).sum().add((hh * dh_in.double()).sum()).backward()
    dh, dw = add_rms_norm_backward(h.float(), w.float(), dy, dh_in, 1e-6)
    torch.testing.assert_close(dh.double(), hh.grad, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(dw.double(), ww.grad, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("affine", [(True, True), (True, False), (False, False)])
def test_layer_norm_backward_matches_float64_autograd(affine: tuple[bool, bool]) -> None:
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(2, 3, 10, generator=gen, dtype=torch.float64) + 50
    w = torch.randn(10, generator=gen, dtype=torch.float64) if affine[0] else None
    b = torch.randn(10, generator=gen, dtype=torch.float64) if affine[1] else None
    dy = torch.randn(2, 3, 10, generator=gen, dtype=torch.float64)
    leaves = [t.clone().requires_grad_(True) if t is not None else None for t in (x, w, b)]
    y = torch.nn.functional.layer_norm(leaves[0], (10,), leaves[1], leaves[2], 1e-5)
    y.backward(dy)
    for fn in (layer_norm_backward, layer_norm_backward_float32):
        got = fn(x.float(), *(t.float() if t is not None else None for t in (w, b)), dy.float())
        for mine, leaf in zip(got, leaves, strict=True):
            if leaf is None:
                assert mine is None
            else:
                assert mine is not None and leaf.grad is not None
                torch.testing.assert_close(mine.double(), leaf.grad, atol=1e-3, rtol=1e-3)


def test_layer_norm_backward_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError):
        layer_norm_backward(torch.ones(2, 3), None, None, torch.ones(3))
    with pytest.raises(ValueError):
        layer_norm_backward(torch.ones(2, 3), torch.ones(2), None, torch.ones(2, 3))


def test_rms_norm_matches_a_row_loop_in_every_dtype_and_layout() -> None:
    gen = torch.Generator().manual_seed(8)
    wide, w = torch.randn(6, 40, generator=gen), torch.randn(33, generator=gen)
    x = wide[:, 2:35]  # row stride 40, not d = 33
    torch.testing.assert_close(rms_norm(x, w, 1e-6).double(), _loop_rms(x, w, 1e-6))
    torch.testing.assert_close(rms_norm(x, w, 2.0).double(), _loop_rms(x, w, 2.0))
    big = (torch.randn(4, 64, generator=gen) * 300).half()  # float16 squares overflow
    wh = (250 + torch.rand(64, generator=gen)).half()
    out = rms_norm(big, wh, 1e-6)
    assert out.dtype == torch.float16 and bool(out.isfinite().all())
    torch.testing.assert_close(out, _loop_rms(big, wh, 1e-6).half(), atol=1e-3, rtol=2e-3)
    assert torch.equal(rms_norm(torch.zeros(2, 5), torch.ones(5), 1e-5), torch.zeros(2, 5))
    assert rms_norm(torch.zeros(0, 7), torch.ones(7), 1e-6).shape == (0, 7)
    with pytest.raises(ValueError):
        rms_norm(torch.zeros(2, 3, 4), torch.ones(4), 1e-6)


def test_triton_rms_norm_matches_the_reference_where_triton_is_installed() -> None:
    require_triton()
    from kernels.triton_rmsnorm import rms_norm as triton_rms_norm  # interpreter without a GPU

    gen = torch.Generator().manual_seed(9)
    wide, w = torch.randn(5, 130, generator=gen), torch.randn(100, generator=gen)
    x = wide[:, 7:107]
    torch.testing.assert_close(triton_rms_norm(x, w, 1e-6), rms_norm(x, w, 1e-6))
    half = (torch.randn(3, 72, generator=gen) * 300).half()
    wh = torch.randn(72, generator=gen).half()
    torch.testing.assert_close(triton_rms_norm(half, wh, 1e-6), rms_norm(half, wh, 1e-6),
                               atol=1e-3, rtol=2e-3)
    assert triton_rms_norm(x[:0], w, 1e-6).shape == (0, 100)

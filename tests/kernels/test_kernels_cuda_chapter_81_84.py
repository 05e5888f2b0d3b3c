"""kernels.cuda_chapter's references of problems 81-84 (axpby, row_sum, row_softmax, layer_norm)
against plain Python loops."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.cuda_chapter import axpby, layer_norm, row_softmax, row_sum


def test_axpby_scales_and_adds_elementwise_for_any_shape_and_strides() -> None:
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(6, 4, generator=g), torch.randn(4, 6, generator=g).t()
    got = axpby(x, y, 1.5, -2.0)
    assert got.shape == (6, 4) and got.dtype == torch.float32
    for i in range(6):
        for j in range(4):
            assert got[i, j].item() == pytest.approx(1.5 * x[i, j].item() - 2.0 * y[i, j].item(),
                                                     rel=1e-6, abs=1e-6)
    with pytest.raises(ValueError, match="one shape"):
        axpby(x, torch.zeros(3), 1.0, 1.0)


def test_row_sum_is_the_exact_sum_rounded_once() -> None:
    g = torch.Generator().manual_seed(2)
    x = torch.randn(5, 300, generator=g) * 1000
    got = row_sum(x)
    assert got.dtype == torch.float32
    want = torch.tensor([math.fsum(float(v) for v in row) for row in x], dtype=torch.float64)
    assert torch.equal(got, want.float())
    with pytest.raises(ValueError, match="2-D"):
        row_sum(torch.zeros(3))


def test_row_softmax_subtracts_the_maximum_and_normalises_each_row() -> None:
    x = torch.tensor([[1.0, 2.0, 3.0], [1000.0, 1001.0, 999.0], [-200.0, -201.0, -200.0]])
    got = row_softmax(x)
    for r, row in enumerate(x.tolist()):
        top = max(row)
        total = sum(math.exp(v - top) for v in row)
        for c, v in enumerate(row):
            assert got[r, c].item() == pytest.approx(math.exp(v - top) / total, rel=1e-6)
    assert torch.isfinite(got).all()


def test_layer_norm_uses_the_biased_variance_and_eps_inside_the_root() -> None:
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 7, generator=g) + 1000.0
    x[2] = 5.0  # a constant row gives the bias
    w, b = torch.randn(7, generator=g), torch.randn(7, generator=g)
    got = layer_norm(x, w, b, 0.5)
    for r, row in enumerate(x.tolist()):
        mean = math.fsum(row) / 7
        var = math.fsum((v - mean) ** 2 for v in row) / 7
        for c, v in enumerate(row):
            want = (v - mean) / math.sqrt(var + 0.5) * w[c].item() + b[c].item()
            assert got[r, c].item() == pytest.approx(want, rel=1e-4, abs=1e-4)
    with pytest.raises(ValueError, match=r"\[R, C\]"):
        layer_norm(x, w[:3], b, 1e-5)

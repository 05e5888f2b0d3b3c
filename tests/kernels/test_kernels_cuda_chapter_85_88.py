"""kernels.cuda_chapter's references of problems 85-88 (transpose, matmul, row_argmax,
causal_attention) against plain Python loops."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.cuda_chapter import causal_attention, matmul, row_argmax, transpose


def test_transpose_is_a_new_contiguous_copy_of_x_t() -> None:
    x = torch.randn(5, 7)
    out = transpose(x[:, ::1])
    assert out.is_contiguous() and out.shape == (7, 5)
    assert all(out[j, i] == x[i, j] for i in range(5) for j in range(7))
    with pytest.raises(ValueError, match="2-D"):
        transpose(torch.zeros(3))


def test_matmul_sums_the_products_and_rounds_once() -> None:
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(4, 6, generator=g), torch.randn(6, 3, generator=g)
    want = torch.tensor([[math.fsum(float(a[i, k]) * float(b[k, j]) for k in range(6))
                          for j in range(3)] for i in range(4)], dtype=torch.float64)
    got = matmul(a, b)
    assert got.dtype == torch.float32
    assert torch.equal(got, want.float())
    with pytest.raises(ValueError, match="a must be"):
        matmul(a, a)


def test_row_argmax_takes_the_largest_value_and_its_lowest_column() -> None:
    inf = float("inf")
    x = torch.tensor([[1.0, 5.0, 3.0, 5.0], [-inf, -inf, -inf, -inf], [0.0, -inf, 2.0, 2.0],
                      [-1.0, -0.5, -0.75, -2.0]])
    values, indices = row_argmax(x)
    for r, row in enumerate(x.tolist()):
        best = max(row)
        assert values[r] == best and indices[r] == row.index(best)
    assert indices.dtype == torch.int64
    with pytest.raises(ValueError, match="C >= 1"):
        row_argmax(torch.zeros(2, 0))


def test_causal_attention_weights_the_visible_values_by_a_stable_softmax() -> None:
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 5, 3, generator=g) * 20 for _ in range(3))  # scores past 88
    got = causal_attention(q, k, v)
    for h in range(2):
        for i in range(5):
            scores = [float(q[h, i] @ k[h, j]) / math.sqrt(3) for j in range(i + 1)]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            for c in range(3):
                want = sum(w * float(v[h, j, c]) for j, w in enumerate(weights)) / sum(weights)
                assert got[h, i, c].item() == pytest.approx(want, rel=1e-5, abs=1e-4)
    assert torch.isfinite(got).all()
    small = torch.randn(3, 6, 4, generator=g)
    sdpa = torch.nn.functional.scaled_dot_product_attention(small, small, small, is_causal=True)
    torch.testing.assert_close(causal_attention(small, small, small), sdpa)
    with pytest.raises(ValueError, match="all be"):
        causal_attention(q, k[:, :3], v)

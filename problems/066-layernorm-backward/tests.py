"""Tests of problem 66. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

ROW4 = [[1.0, 1.0, 3.0, 3.0]]
UP4 = [[1.0, 0.0, 0.0, 0.0]]


def _random(gen: torch.Generator, shape: tuple[int, ...] = (4, 7, 32), *,
            weight: bool = True, bias: bool = True, dtype: torch.dtype = torch.float32,
            scale: float = 1.0, offset: float = 0.0, eps: float | None = None) -> Call:
    d = shape[-1]
    x = (torch.randn(shape, generator=gen) * scale + offset).to(dtype)
    w = (1.0 + 0.5 * torch.randn(d, generator=gen)).to(dtype) if weight else None
    b = torch.randn(d, generator=gen).to(dtype) if bias else None
    grad_out = torch.randn(shape, generator=gen).to(dtype)
    return Call((x, w, b, grad_out) if eps is None else (x, w, b, grad_out, eps))


def _constant_rows(gen: torch.Generator) -> Call:
    call = _random(gen, (5, 8))
    x = call.args[0]
    x[2] = 5.0
    return Call((x, *call.args[1:]))


def _views(gen: torch.Generator) -> Call:
    n, d = 6, 16
    x = torch.randn(d, n, generator=gen).t()
    w = torch.randn(2 * d, generator=gen)[1::2]
    grad_out = torch.randn(n, 2 * d, generator=gen)[:, ::2]
    return Call((x, w, torch.randn(d, generator=gen), grad_out))


CASES: list[Case] = [
    Case("example_d2", "layer_norm_backward",
         lambda g: Call((torch.tensor([[1.0, 3.0]]), torch.ones(2), torch.zeros(2),
                         torch.tensor([[1.0, 0.0]])), {"eps": 0.0}),
         public=True, note="d = 2: the output is always +-1, so dx = 0"),
    Case("example_d4", "layer_norm_backward",
         lambda g: Call((torch.tensor(ROW4), torch.tensor([2.0, 1.0, 1.0, 1.0]), torch.zeros(4),
                         torch.tensor(UP4)), {"eps": 0.0}),
         public=True, note="mean 2, biased variance 1: both statistics' terms in dx"),
    Case("example_no_affine", "layer_norm_backward",
         lambda g: Call((torch.tensor(ROW4), None, None, torch.tensor(UP4)), {"eps": 0.0}),
         public=True, note="no weight, no bias: their gradients are None",
         tags=("missing_parameters",)),
    Case("random", "layer_norm_backward", lambda g: _random(g),
         note="[4, 7, 32] with weight and bias: sums over both leading dimensions",
         tags=("leading_dims",)),
    Case("small_d", "layer_norm_backward", lambda g: _random(g, (6, 3)),
         note="d = 3: the biased variance differs from the unbiased one by half"),
    Case("weight_only", "layer_norm_backward", lambda g: _random(g, (5, 16), bias=False),
         note="bias None: dbias is None, dweight a tensor", tags=("missing_parameters",)),
    Case("bias_only", "layer_norm_backward", lambda g: _random(g, (4, 10), weight=False),
         note="weight None, bias a tensor: dweight is None, dbias a tensor, weight acts as ones",
         tags=("missing_parameters",)),
    Case("no_affine", "layer_norm_backward",
         lambda g: _random(g, (3, 4, 12), weight=False, bias=False),
         note="no parameters: weight acts as ones", tags=("missing_parameters",)),
    Case("bf16", "layer_norm_backward", lambda g: _random(g, (8, 64), dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 gradients, computed in float32", tags=("bfloat16",)),
    Case("far_from_zero", "layer_norm_backward",
         lambda g: _random(g, (6, 64), offset=1000.0),
         note="rows with mean 1000 and spread 1: a one-pass variance cancels"),
    Case("tiny_variance", "layer_norm_backward",
         lambda g: _random(g, (5, 16), scale=2e-3, eps=1e-5),
         note="variance near eps, eps passed positionally: eps inside the root", tags=("eps",)),
    Case("constant_row", "layer_norm_backward", _constant_rows,
         note="a constant row: zero variance, finite gradients", tags=("eps",)),
    Case("one_row", "layer_norm_backward", lambda g: _random(g, (24,)),
         note="x of shape [d]", tags=("leading_dims",)),
    Case("non_contiguous", "layer_norm_backward", _views,
         note="transposed x, strided weight and grad_out", tags=("non_contiguous",)),
    Case("shape_mismatch", "layer_norm_backward",
         lambda g: Call((torch.randn(3, 8, generator=g), None, None,
                         torch.randn(8, generator=g))),
         note="grad_out [8] for x [3, 8]: ValueError", tags=("validation",)),
    Case("bad_bias", "layer_norm_backward",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.ones(8), torch.zeros(3),
                         torch.randn(3, 8, generator=g))),
         note="bias [3] for d = 8: ValueError", tags=("validation",)),
    Case("bad_weight", "layer_norm_backward",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.ones(1), torch.zeros(8),
                         torch.randn(3, 8, generator=g))),
         note="weight [1] for d = 8 would broadcast: ValueError", tags=("validation",)),
]

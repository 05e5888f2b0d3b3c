"""Tests of problem 65. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _rows(gen: torch.Generator, shape: tuple[int, ...], scale: float = 1.0,
          offset: float = 0.0) -> torch.Tensor:
    return torch.randn(shape, generator=gen) * scale + offset


def _forward(gen: torch.Generator, shape: tuple[int, ...] = (3, 5, 64), *,
             dtype: torch.dtype = torch.float32, scale: float = 1.0, offset: float = 0.0,
             eps: float | None = None) -> Call:
    d = shape[-1]
    x = _rows(gen, shape, scale, offset).to(dtype)
    residual = _rows(gen, shape, scale, offset).to(dtype)
    weight = (1.0 + 0.5 * torch.randn(d, generator=gen)).to(dtype)
    return Call((x, residual, weight) if eps is None else (x, residual, weight, eps))


def _forward_views(gen: torch.Generator) -> Call:
    """x transposed out of a [d, N] buffer, the residual every other column of a wider one."""
    n, d = 6, 32
    x = torch.randn(d, n, generator=gen).t()
    residual = torch.randn(n, 2 * d, generator=gen)[:, 1::2]
    return Call((x, residual, torch.randn(d, generator=gen)))


def _zero_rows(gen: torch.Generator) -> Call:
    call = _forward(gen, (4, 16))
    x, residual, weight = call.args
    x[1], residual[1] = 1.0, -1.0  # the sum is exactly zero
    return Call((x, residual, weight))


def _backward(gen: torch.Generator, shape: tuple[int, ...] = (2, 6, 32), *,
              dtype: torch.dtype = torch.float32, scale: float = 1.0,
              eps: float | None = None, zero_grad_h: bool = False) -> Call:
    d = shape[-1]
    h = _rows(gen, shape, scale).to(dtype)
    weight = (1.0 + 0.5 * torch.randn(d, generator=gen)).to(dtype)
    grad_out = torch.randn(shape, generator=gen).to(dtype)
    grad_h = torch.zeros(shape, dtype=dtype) if zero_grad_h else torch.randn(shape, generator=gen).to(dtype)
    args = (h, weight, grad_out, grad_h)
    return Call(args if eps is None else (*args, eps))


def _backward_views(gen: torch.Generator) -> Call:
    n, d = 5, 24
    h = torch.randn(d, n, generator=gen).t()
    weight = torch.randn(2 * d, generator=gen)[::2]
    grad_out = torch.randn(n, 2 * d, generator=gen)[:, 1::2]
    grad_h = torch.randn(d, generator=gen)[None].expand(n, d)
    return Call((h, weight, grad_out, grad_h))


CASES: list[Case] = [
    Case("example_add_rms_norm", "add_rms_norm",
         lambda g: Call((torch.tensor([[1.0, 2.0]]), torch.tensor([[1.0, 0.0]]),
                         torch.tensor([1.0, 0.5])), {"eps": 0.0}),
         public=True, note="h = (2, 2), mean square 4: out = h / 2 * weight"),
    Case("example_eps_inside_sqrt", "add_rms_norm",
         lambda g: Call((torch.tensor([0.001, -0.001]), torch.zeros(2), torch.ones(2), 1e-6)),
         public=True, note="mean square 1e-6 = eps: eps inside the root gives 1/sqrt(2)",
         tags=("eps",)),
    Case("example_backward", "add_rms_norm_backward",
         lambda g: Call((torch.tensor([[3.0, 4.0]]), torch.ones(2), torch.tensor([[1.0, 0.0]]),
                         torch.tensor([[0.0, 1.0]])), {"eps": 0.0}),
         public=True, note="one row: the norm's Jacobian plus the stream's own gradient"),
    # hidden: forward
    Case("forward_random", "add_rms_norm", lambda g: _forward(g),
         note="[3, 5, 64] float32, random weight (not ones: catches 1 + w)"),
    Case("forward_bf16", "add_rms_norm", lambda g: _forward(g, (4, 128), dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out, computed in float32", tags=("bfloat16",)),
    Case("forward_fp16_large", "add_rms_norm",
         lambda g: _forward(g, (6, 64), dtype=torch.float16, scale=400.0),
         note="float16 values in the hundreds: h^2 overflows float16", tags=("float16_range",)),
    Case("forward_tiny_rows", "add_rms_norm",
         lambda g: _forward(g, (5, 16), scale=7e-4, eps=1e-6),
         note="mean square near eps: eps inside the square root", tags=("eps",)),
    Case("forward_default_eps", "add_rms_norm",
         lambda g: _forward(g, (5, 16), scale=7e-4),
         note="mean square near 1e-6 and eps not passed: the default is 1e-6", tags=("eps",)),
    Case("forward_eps_positional", "add_rms_norm",
         lambda g: _forward(g, (4, 8), scale=2e-3, eps=1e-5),
         note="eps = 1e-5 passed positionally, rows where it matters", tags=("eps",)),
    Case("forward_offset_rows", "add_rms_norm",
         lambda g: _forward(g, (4, 32), offset=3.0),
         note="rows with a large mean: RMSNorm does not subtract it"),
    Case("forward_zero_row", "add_rms_norm", _zero_rows,
         note="x = -residual on one row: h = 0 and out = 0 (eps keeps it finite)"),
    Case("forward_1d", "add_rms_norm", lambda g: _forward(g, (48,)),
         note="a single [d] vector"),
    Case("forward_d1", "add_rms_norm", lambda g: _forward(g, (7, 1)),
         note="d = 1: each output is sign(h) * w, nearly"),
    Case("forward_non_contiguous", "add_rms_norm", _forward_views,
         note="x transposed, residual a strided view: .view on them fails",
         tags=("non_contiguous",)),
    Case("forward_bad_weight", "add_rms_norm",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.randn(3, 8, generator=g),
                         torch.randn(4, generator=g))),
         note="weight [4] for d = 8: ValueError", tags=("validation",)),
    Case("forward_shape_mismatch", "add_rms_norm",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.randn(8, generator=g),
                         torch.randn(8, generator=g))),
         note="x [3, 8], residual [8]: ValueError, no broadcasting", tags=("validation",)),
    Case("forward_dtype_mismatch", "add_rms_norm",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.randn(3, 8, generator=g).to(torch.bfloat16),
                         torch.randn(8, generator=g))),
         note="x float32, residual bfloat16: ValueError, no type promotion", tags=("validation",)),
    # hidden: backward
    Case("backward_random", "add_rms_norm_backward", lambda g: _backward(g),
         note="[2, 6, 32]: dweight sums over both leading dimensions"),
    Case("backward_no_stream_grad", "add_rms_norm_backward",
         lambda g: _backward(g, (4, 16), zero_grad_h=True),
         note="grad_h = 0: only the norm's Jacobian"),
    Case("backward_bf16", "add_rms_norm_backward",
         lambda g: _backward(g, (8, 64), dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 gradients, computed in float32", tags=("bfloat16",)),
    Case("backward_tiny_rows", "add_rms_norm_backward",
         lambda g: _backward(g, (5, 16), scale=7e-4, eps=1e-6),
         note="mean square near eps", tags=("eps",)),
    Case("backward_large_rows", "add_rms_norm_backward",
         lambda g: _backward(g, (3, 16), scale=300.0, dtype=torch.float16),
         note="float16 values in the hundreds", tags=("float16_range",)),
    Case("backward_1d", "add_rms_norm_backward", lambda g: _backward(g, (20,)),
         note="a single [d] vector: dweight is one row's product"),
    Case("backward_non_contiguous", "add_rms_norm_backward", _backward_views,
         note="transposed h, strided weight and grad_out, grad_h expanded (stride 0)",
         tags=("non_contiguous",)),
    Case("backward_shape_mismatch", "add_rms_norm_backward",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.randn(8, generator=g),
                         torch.randn(3, 8, generator=g), torch.randn(2, 8, generator=g))),
         note="grad_h [2, 8] for h [3, 8]: ValueError", tags=("validation",)),
    Case("backward_grad_out_broadcast", "add_rms_norm_backward",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.randn(8, generator=g),
                         torch.randn(8, generator=g), torch.randn(3, 8, generator=g))),
         note="grad_out [8] for h [3, 8] would broadcast: ValueError", tags=("validation",)),
    Case("backward_weight_broadcast", "add_rms_norm_backward",
         lambda g: Call((torch.randn(3, 8, generator=g), torch.randn(1, generator=g),
                         torch.randn(3, 8, generator=g), torch.randn(3, 8, generator=g))),
         note="weight [1] for d = 8 would broadcast: ValueError", tags=("validation",)),
]

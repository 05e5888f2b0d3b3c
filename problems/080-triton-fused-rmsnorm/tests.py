"""Tests of problem 80. Kept small: on a CPU every kernel runs in Triton's interpreter."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, rows: int, d: int, *, dtype: torch.dtype = torch.float32,
            scale: float = 1.0, eps: float = 1e-6) -> Call:
    x = (torch.randn(rows, d, generator=gen) * scale).to(dtype)
    weight = (1.0 + 0.5 * torch.randn(d, generator=gen)).to(dtype)
    return Call((x, weight, eps))


def _zero_rows(gen: torch.Generator) -> Call:
    x = torch.randn(6, 20, generator=gen)
    x[1] = 0.0
    x[4] = 0.0
    return Call((x, torch.randn(20, generator=gen), 1e-5))


def _large_weight_fp16(gen: torch.Generator) -> Call:
    x = (torch.randn(6, 72, generator=gen) * 300.0).half()
    weight = (250.0 + 10.0 * torch.rand(72, generator=gen)).half()
    return Call((x, weight, 1e-6))


def _buffer_columns(gen: torch.Generator, dtype: torch.dtype) -> Call:
    wide = torch.randn(9, 64, generator=gen).to(dtype)
    return Call((wide[:, 3:51], torch.randn(48, generator=gen).to(dtype), 1e-6))


CASES: list[Case] = [
    Case("example_small", "rms_norm",
         lambda g: Call((torch.tensor([[2.0, 2.0, 2.0, 2.0], [1.0, -1.0, 1.0, -1.0]]),
                         torch.tensor([1.0, 2.0, 0.5, 0.0]), 0.0)),
         public=True, note="two rows of mean square 4 and 1, a weight per column, eps = 0",
         tags=("basic",)),
    Case("example_eps", "rms_norm",
         lambda g: Call((torch.tensor([[0.0, 0.0, 0.0], [2.0, -2.0, 2.0]]),
                         torch.tensor([1.0, 1.0, 1.0]), 5.0)),
         public=True, note="eps = 5 inside the root: 2 / sqrt(4 + 5); a zero row stays zero",
         tags=("eps",)),
    Case("random", "rms_norm", lambda g: _random(g, 12, 40),
         note="d = 40: a partial block (mean over d, not over the block; masked lanes add 0)",
         tags=("tail",)),
    Case("wide_rows", "rms_norm", lambda g: _random(g, 3, 1000),
         note="d = 1000: more columns than a small block", tags=("tail",)),
    Case("long_rows", "rms_norm", lambda g: _random(g, 2, 4096),
         note="d = 4096, the longest rows", tags=("basic",)),
    Case("power_of_two", "rms_norm", lambda g: _random(g, 4, 256), note="d = 256: no tail",
         tags=("basic",)),
    Case("one_column", "rms_norm", lambda g: _random(g, 5, 1), note="d = 1", tags=("basic",)),
    Case("large_eps", "rms_norm", lambda g: _random(g, 6, 24, scale=0.1, eps=1.0),
         note="eps = 1 with small inputs: eps inside the square root, not added after it",
         tags=("eps",)),
    Case("zero_rows", "rms_norm", _zero_rows, note="rows of zeros give zeros, not NaN",
         tags=("tail",)),
    Case("no_rows", "rms_norm",
         lambda g: Call((torch.zeros(0, 16), torch.randn(16, generator=g), 1e-6)),
         note="no rows: an empty [0, d] result", tags=("basic",)),
    Case("float16", "rms_norm", lambda g: _random(g, 8, 100, dtype=torch.float16),
         note="float16 in, float16 out", tags=("dtype",)),
    Case("float16_large", "rms_norm",
         lambda g: _random(g, 6, 72, dtype=torch.float16, scale=300.0),
         note="float16 with |x| ~ 300: the squares overflow float16 (max 65504), accumulate in "
              "float32", tags=("dtype",)),
    Case("float16_large_weight", "rms_norm", _large_weight_fp16,
         note="float16 |x| ~ 300 and weight ~ 255: x * weight overflows float16, normalise "
              "first", tags=("dtype",)),
    Case("bfloat16", "rms_norm", lambda g: _random(g, 8, 50, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("dtype",)),
    Case("rows_of_wider_buffer", "rms_norm", lambda g: _buffer_columns(g, torch.float32),
         note="x is columns 3..50 of a [9, 64] buffer: row stride 64, not d = 48",
         tags=("strides",)),
    Case("every_other_row", "rms_norm",
         lambda g: Call((torch.randn(14, 30, generator=g)[::2], torch.randn(30, generator=g),
                         1e-6)),
         note="x is every other row of a larger tensor: row stride 2 * d", tags=("strides",)),
    Case("float16_strided", "rms_norm", lambda g: _buffer_columns(g, torch.float16),
         note="float16 rows of a wider buffer", tags=("strides",)),
    Case("weight_strided", "rms_norm",
         lambda g: Call((torch.randn(5, 32, generator=g), torch.randn(64, generator=g)[::2],
                         1e-6)),
         note="the weight is every other element of a longer vector: stride 2", tags=("strides",)),
]

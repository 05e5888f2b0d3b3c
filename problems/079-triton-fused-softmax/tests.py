"""Tests of problem 79. Kept small: on a CPU every kernel runs in Triton's interpreter."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

NEG = float("-inf")


def _random(gen: torch.Generator, rows: int, cols: int, *, scale: float = 3.0, shift: float = 0.0,
            dtype: torch.dtype = torch.float32) -> Call:
    return Call(((torch.randn(rows, cols, generator=gen) * scale + shift).to(dtype),))


def _causal_rows(gen: torch.Generator) -> Call:
    """Row i keeps its first i + 1 columns (a causal mask); -inf elsewhere."""
    x = torch.randn(6, 45, generator=gen) * 2
    cols = torch.arange(45)
    return Call((x.masked_fill(cols[None, :] > torch.arange(6)[:, None] * 8, NEG),))


def _fully_masked(gen: torch.Generator) -> Call:
    x = torch.randn(5, 70, generator=gen)
    x[1] = NEG
    x[3] = NEG
    return Call((x,))


def _half_peaked(gen: torch.Generator) -> Call:
    """One logit 12 above thousands of small ones: each of those adds about 6e-6 (1.8% in all)
    to a running sum near 1, which float16 (spacing 2 ** -10 above 1) rounds away."""
    x = torch.randn(2, 3000, generator=gen) * 0.1
    x[:, 0] = 12.0
    return Call((x.half(),))


CASES: list[Case] = [
    Case("example_small", "softmax",
         lambda g: Call((torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),)), public=True,
         note="two rows of three: [0.0900, 0.2447, 0.6652] and thirds"),
    Case("example_large_logits", "softmax",
         lambda g: Call((torch.tensor([[1000.0, 1001.0, 1002.0]]),)), public=True,
         note="exp(1000) overflows float32: the row's maximum must be subtracted first",
         tags=("stable",)),
    Case("example_masked_row", "softmax",
         lambda g: Call((torch.tensor([[0.0, NEG, 0.0], [NEG, NEG, NEG]]),)), public=True,
         note="-inf entries get 0; a row of nothing but -inf gets zeros, not NaN",
         tags=("masked",)),
    Case("random_tail", "softmax", lambda g: _random(g, 7, 50),
         note="50 columns: a block of 64 has 14 masked lanes (padding read as 0 joins the sum)",
         tags=("padding",)),
    Case("all_negative_tail", "softmax", lambda g: _random(g, 4, 37, shift=-20.0),
         note="every entry far below 0 with a partial block: padding read as 0 becomes the max",
         tags=("padding",)),
    Case("one_column", "softmax", lambda g: _random(g, 5, 1), note="one column: all ones",
         tags=("padding",)),
    Case("exactly_one_block", "softmax", lambda g: _random(g, 4, 128), note="128 columns",
         tags=("blocks",)),
    Case("long_rows", "softmax", lambda g: _random(g, 3, 4096, scale=2.0),
         note="4096 columns: more than one block of a looped kernel", tags=("blocks",)),
    Case("long_rows_tail", "softmax", lambda g: _random(g, 2, 3001, scale=2.0),
         note="3001 columns: several blocks and a partial last one", tags=("blocks",)),
    Case("large_magnitude", "softmax", lambda g: _random(g, 6, 40, scale=300.0),
         note="logits in the hundreds: exp without the max subtracted overflows to inf (NaN)",
         tags=("stable",)),
    Case("large_negative", "softmax", lambda g: _random(g, 4, 33, shift=-200.0),
         note="every logit near -200: exp without the max underflows to 0 (0 / 0 = NaN)",
         tags=("stable",)),
    Case("causal_rows", "softmax", _causal_rows,
         note="-inf entries in every row, fewer in each", tags=("masked",)),
    Case("fully_masked_rows", "softmax", _fully_masked,
         note="two rows of only -inf: zeros (max - max = -inf - -inf is NaN unguarded)",
         tags=("masked",)),
    Case("row_slice", "softmax",
         lambda g: Call(((torch.randn(9, 100, generator=g) * 3)[:, 5:65],)),
         note="columns 5..64 of a 100-wide matrix: row stride 100, not n_cols", tags=("strides",)),
    Case("row_slice_view", "softmax",
         lambda g: Call((torch.randn(6, 80, generator=g)[:, 8:48],)),
         note="columns 8..47 of an 80-wide matrix, a view (storage offset 8, row stride 80)",
         tags=("strides",)),
    Case("transposed", "softmax", lambda g: Call((torch.randn(40, 6, generator=g).t(),)),
         note="a [40, 6] matrix used transposed: row stride 1, column stride 6", tags=("strides",)),
    Case("float16", "softmax", lambda g: _random(g, 5, 300, scale=4.0, dtype=torch.float16),
         note="float16 in, float16 out", tags=("dtype",)),
    Case("float16_peaked_long_rows", "softmax", _half_peaked,
         note="float16, 3000 columns, one peak: a sum kept in float16 loses the small terms",
         tags=("dtype",)),
    Case("bfloat16", "softmax", lambda g: _random(g, 4, 200, scale=4.0, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("dtype",)),
]

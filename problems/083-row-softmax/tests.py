"""Tests of problem 83. Small: on a CPU every kernel runs in the emulation (a coroutine per
thread)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, rows: int, cols: int, scale: float = 2.0,
            shift: float = 0.0) -> Call:
    return Call((torch.randn(rows, cols, generator=gen) * scale + shift,))


CASES: list[Case] = [
    Case("example_small", "row_softmax",
         lambda g: Call((torch.tensor([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]),)),
         public=True, note="two rows of three: a ramp and a constant row", tags=("basic",)),
    Case("example_large_logits", "row_softmax",
         lambda g: Call((torch.tensor([[1000.0, 1001.0]]),)),
         public=True, note="exp(1000) overflows float32: subtract the row's maximum first",
         tags=("stability",)),
    Case("one_by_one", "row_softmax", lambda g: _random(g, 1, 1), note="a single entry gives 1",
         tags=("bounds",)),
    Case("one_column", "row_softmax", lambda g: _random(g, 5, 1), note="rows of one entry",
         tags=("bounds",)),
    Case("not_a_multiple_of_the_block", "row_softmax", lambda g: _random(g, 4, 1000),
         note="1000 columns: a partial last stride", tags=("bounds",)),
    Case("odd_width", "row_softmax", lambda g: _random(g, 9, 33), note="33 columns",
         tags=("bounds",)),
    Case("many_rows", "row_softmax", lambda g: _random(g, 64, 40), note="64 rows of 40",
         tags=("reduction",)),
    Case("long_rows", "row_softmax", lambda g: _random(g, 2, 4096), note="2 rows of 4096",
         tags=("reduction",)),
    Case("large_logits", "row_softmax", lambda g: _random(g, 3, 300, scale=20.0, shift=100.0),
         note="logits near 100 (exp overflows without the max subtracted)",
         tags=("stability",)),
    Case("very_negative_logits", "row_softmax",
         lambda g: _random(g, 3, 200, scale=5.0, shift=-200.0),
         note="logits near -200 (exp underflows to 0 without the max subtracted: 0 / 0)",
         tags=("stability",)),
    Case("non_contiguous", "row_softmax",
         lambda g: Call((torch.randn(70, 5, generator=g).t(),)),
         note="a transposed [70, 5] matrix (the bindings copy it)", tags=("basic",)),
]

"""Tests of problem 82. Small: on a CPU every kernel runs in the emulation (a coroutine per
thread)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, rows: int, cols: int) -> Call:
    return Call((torch.randn(rows, cols, generator=gen),))


CASES: list[Case] = [
    Case("example_small", "row_sum",
         lambda g: Call((torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),)),
         public=True, note="two rows of three: fewer columns than threads", tags=("basic",)),
    Case("example_ones", "row_sum", lambda g: Call((torch.ones(1, 300),)),
         public=True, note="one row of 300 ones: more columns than a block of 256",
         tags=("basic",)),
    Case("one_by_one", "row_sum", lambda g: _random(g, 1, 1), note="a 1 x 1 matrix",
         tags=("bounds",)),
    Case("one_column", "row_sum", lambda g: _random(g, 7, 1),
         note="rows of one element: every other thread adds nothing", tags=("bounds",)),
    Case("not_a_multiple_of_the_block", "row_sum", lambda g: _random(g, 5, 1000),
         note="1000 columns: a partial last stride", tags=("bounds",)),
    Case("exactly_a_block", "row_sum", lambda g: _random(g, 3, 256), note="256 columns",
         tags=("reduction",)),
    Case("odd_width", "row_sum", lambda g: _random(g, 9, 33),
         note="33 columns: one warp and one more", tags=("reduction",)),
    Case("many_rows", "row_sum", lambda g: _random(g, 64, 40), note="64 rows of 40",
         tags=("reduction",)),
    Case("long_rows", "row_sum", lambda g: _random(g, 2, 4096), note="2 rows of 4096",
         tags=("reduction",)),
    Case("constant_rows", "row_sum", lambda g: Call((torch.full((3, 1000), 0.5),)),
         note="rows of 0.5: every column counted exactly once", tags=("bounds",)),
    Case("non_contiguous", "row_sum",
         lambda g: Call((torch.randn(50, 6, generator=g).t(),)),
         note="a transposed [50, 6] matrix (the bindings copy it)", tags=("basic",)),
]

"""Tests of problem 85: small enough for the CPU emulation (at most 4096 elements)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, rows: int, cols: int) -> Call:
    return Call((torch.randn(rows, cols, generator=gen),))


CASES: list[Case] = [
    Case("example_small", "transpose",
         lambda g: Call((torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),)),
         public=True, note="a 2 x 3 matrix becomes 3 x 2", exact=True, tags=("basic",)),
    Case("example_one_tile", "transpose",
         lambda g: Call((torch.arange(32 * 32, dtype=torch.float32).reshape(32, 32),)),
         public=True, note="exactly one 32 x 32 tile: out[i][j] = 32 * j + i", exact=True, tags=("basic",)),
    Case("one_element", "transpose", lambda g: _random(g, 1, 1), note="a 1 x 1 matrix",
         exact=True, tags=("bounds",)),
    Case("one_row", "transpose", lambda g: _random(g, 1, 100),
         note="one row of 100 becomes a column: a partial tile in each direction",
         exact=True, tags=("bounds",)),
    Case("one_column", "transpose", lambda g: _random(g, 77, 1),
         note="one column of 77 becomes a row", exact=True, tags=("bounds",)),
    Case("ragged_tiles", "transpose", lambda g: _random(g, 45, 70),
         note="45 x 70: neither side a multiple of 32 (the last tiles are partial)",
         exact=True, tags=("bounds",)),
    Case("tall", "transpose", lambda g: _random(g, 97, 33),
         note="97 x 33: one past a multiple of 32 on each side (the last row and column)",
         exact=True, tags=("bounds",)),
    Case("square_64", "transpose", lambda g: _random(g, 64, 64),
         note="64 x 64: four full tiles, every thread of a block reads what others wrote",
         exact=True, tags=("tiles",)),
    Case("wide", "transpose", lambda g: _random(g, 20, 200),
         note="20 x 200: more column tiles than row tiles (the grid's x and y not swapped)",
         exact=True, tags=("tiles",)),
    Case("special_values", "transpose",
         lambda g: Call((torch.tensor([[float("inf"), -0.0, 1e-40],
                                       [float("-inf"), 3.5e38, -1e-45]]),)),
         note="inf, -0.0 and subnormals move unchanged (a copy, no arithmetic)",
         exact=True, tags=("basic",)),
    Case("non_contiguous", "transpose",
         lambda g: Call((torch.randn(40, 50, generator=g)[:, ::2],)),
         note="every other column of a wider matrix (the bindings pass it contiguous)",
         exact=True, tags=("basic",)),
]

"""Tests of problem 87: small enough for the CPU emulation (at most 4096 elements)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

NEG_INF = float("-inf")


def _random(gen: torch.Generator, rows: int, cols: int) -> Call:
    return Call((torch.randn(rows, cols, generator=gen),))


def _max_last(gen: torch.Generator) -> Call:
    x = torch.randn(6, 300, generator=gen)
    x[:, -1] = x.max(dim=1).values + 1.0
    return Call((x,))


def _ties_far_apart(gen: torch.Generator) -> Call:
    x = torch.randn(4, 700, generator=gen)
    top = x.max() + 1.0
    for r, cols in enumerate([(5, 261, 517), (3, 20), (699, 443), (256, 0, 512)]):
        x[r, list(cols)] = top + r
    return Call((x,))


def _neg_inf_rows(gen: torch.Generator) -> Call:
    x = torch.full((4, 40), NEG_INF)
    x[1, 17] = -5.0  # one finite entry among -inf
    x[3] = torch.randn(40, generator=gen)
    x[3, :10] = NEG_INF
    return Call((x,))


CASES: list[Case] = [
    Case("example_small", "row_argmax",
         lambda g: Call((torch.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]]),)),
         public=True, note="maxima 5 at column 1 and 7 at columns 0 and 2: the lowest, 0",
         exact=True, tags=("ties",)),
    Case("example_negative", "row_argmax",
         lambda g: Call((torch.tensor([[-3.0, -1.0, -2.0, -0.5]]),)),
         public=True, note="negative values; the maximum -0.5 is in the last column",
         exact=True, tags=("basic",)),
    Case("random", "row_argmax", lambda g: _random(g, 16, 200),
         note="16 rows of 200: fewer columns than a block of 256 threads", exact=True, tags=("basic",)),
    Case("one_element", "row_argmax", lambda g: _random(g, 1, 1), note="a 1 x 1 input",
         exact=True, tags=("bounds",)),
    Case("one_column", "row_argmax", lambda g: _random(g, 9, 1),
         note="C = 1: every index is 0", exact=True, tags=("bounds",)),
    Case("wide", "row_argmax", lambda g: _random(g, 2, 2000),
         note="rows of 2000: several columns per thread", exact=True, tags=("basic",)),
    Case("max_in_last_column", "row_argmax", _max_last,
         note="every row's maximum is in column C - 1", exact=True, tags=("bounds",)),
    Case("ties_far_apart", "row_argmax", _ties_far_apart,
         note="each row's maximum appears two or three times, in different threads and warps",
         exact=True, tags=("ties",)),
    Case("constant_rows", "row_argmax", lambda g: Call((torch.full((3, 300), 2.5),)),
         note="every entry equal: index 0", exact=True, tags=("ties",)),
    Case("small_integers", "row_argmax",
         lambda g: Call((torch.randint(0, 4, (32, 100), generator=g).float(),)),
         note="values 0..3: many ties in every row", exact=True, tags=("ties",)),
    Case("neg_inf_rows", "row_argmax", _neg_inf_rows,
         note="rows of -inf (value -inf, index 0), one finite entry among -inf, -inf at the "
              "start of a row", exact=True, tags=("infinity",)),
    Case("non_contiguous", "row_argmax",
         lambda g: Call((torch.randn(60, 24, generator=g).t(),)),
         note="the transpose of a [60, 24] tensor (the bindings pass it contiguous)",
         exact=True, tags=("basic",)),
]

"""Tests of problem 86: small enough for the CPU emulation (at most 64 x 64 x 64)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, m: int, n: int, k: int) -> Call:
    return Call((torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)))


def _transposed_b(gen: torch.Generator) -> Call:
    return Call((torch.randn(24, 40, generator=gen), torch.randn(30, 40, generator=gen).t()))


CASES: list[Case] = [
    Case("example_small", "matmul",
         lambda g: Call((torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                         torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))),
         public=True, note="[2, 3] @ [3, 2]: one partial tile in every direction",
         tags=("basic",)),
    Case("example_two_k_tiles", "matmul",
         lambda g: Call((torch.ones(2, 20), torch.arange(20 * 3, dtype=torch.float32)
                         .reshape(20, 3) / 10)),
         public=True, note="K = 20: two tiles along K, the second partial (each c[i][j] sums "
                           "column j of b)", tags=("k_tail",)),
    Case("one_by_one", "matmul", lambda g: _random(g, 1, 1, 1), note="M = N = K = 1",
         tags=("bounds",)),
    Case("ragged", "matmul", lambda g: _random(g, 17, 33, 20),
         note="M, N, K all not multiples of 16", tags=("bounds", "k_tail")),
    Case("k_below_tile", "matmul", lambda g: _random(g, 20, 12, 5),
         note="K = 5: less than one tile along K", tags=("k_tail",)),
    Case("k_one", "matmul", lambda g: _random(g, 9, 11, 1),
         note="K = 1: an outer product", tags=("k_tail",)),
    Case("square_64", "matmul", lambda g: _random(g, 64, 64, 64),
         note="64 x 64 x 64: four tiles along K, each loaded over the previous one",
         tags=("tiles",)),
    Case("k_many_tiles_ragged", "matmul", lambda g: _random(g, 16, 16, 61),
         note="K = 61: three full tiles and a tail of 13", tags=("tiles", "k_tail")),
    Case("one_row", "matmul", lambda g: _random(g, 1, 50, 40),
         note="M = 1: a vector-matrix product", tags=("bounds",)),
    Case("one_column", "matmul", lambda g: _random(g, 45, 1, 37),
         note="N = 1: a matrix-vector product", tags=("bounds",)),
    Case("rectangular", "matmul", lambda g: _random(g, 48, 8, 32),
         note="M != N != K: c is M x N, a's rows have K entries, b's rows N",
         tags=("basic",)),
    Case("non_contiguous", "matmul", _transposed_b,
         note="b is the transpose of a [30, 40] tensor (the bindings pass it contiguous)",
         tags=("basic",)),
]

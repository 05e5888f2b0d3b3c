"""Tests of problem 84. Small: on a CPU every kernel runs in the emulation (a coroutine per
thread)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, rows: int, cols: int, *, scale: float = 1.0,
            shift: float = 0.0, eps: float = 1e-5) -> Call:
    x = torch.randn(rows, cols, generator=gen) * scale + shift
    weight = 1.0 + 0.5 * torch.randn(cols, generator=gen)
    bias = 0.1 * torch.randn(cols, generator=gen)
    return Call((x, weight, bias, eps))


def _constant_rows(gen: torch.Generator) -> Call:
    x = torch.randn(5, 70, generator=gen)
    x[1] = 3.0
    x[3] = -7.0
    return Call((x, torch.randn(70, generator=gen), torch.randn(70, generator=gen), 1e-5))


def _strided(gen: torch.Generator) -> Call:
    x = torch.randn(48, 6, generator=gen).t()
    weight = torch.randn(96, generator=gen)[::2]
    return Call((x, weight, torch.randn(48, generator=gen), 1e-5))


CASES: list[Case] = [
    Case("example_small", "layer_norm",
         lambda g: Call((torch.tensor([[1.0, 2.0, 3.0, 4.0]]), torch.ones(4), torch.zeros(4), 0.0)),
         public=True, note="mean 2.5, biased variance 1.25, no weight or bias", tags=("basic",)),
    Case("example_affine", "layer_norm",
         lambda g: Call((torch.tensor([[0.0, 2.0], [5.0, 5.0]]), torch.tensor([2.0, 1.0]),
                         torch.tensor([1.0, -1.0]), 1.0)),
         public=True, note="eps = 1 inside the root; a constant row gives the bias",
         tags=("eps",)),
    Case("one_by_one", "layer_norm", lambda g: _random(g, 1, 1),
         note="one column: x - mean is 0, y is the bias", tags=("bounds",)),
    Case("one_column", "layer_norm", lambda g: _random(g, 5, 1), note="rows of one column",
         tags=("bounds",)),
    Case("not_a_multiple_of_the_block", "layer_norm", lambda g: _random(g, 4, 1000),
         note="1000 columns: a partial last stride", tags=("bounds",)),
    Case("odd_width", "layer_norm", lambda g: _random(g, 9, 33), note="33 columns",
         tags=("bounds",)),
    Case("many_rows", "layer_norm", lambda g: _random(g, 64, 40), note="64 rows of 40",
         tags=("reduction",)),
    Case("long_rows", "layer_norm", lambda g: _random(g, 2, 4096), note="2 rows of 4096",
         tags=("reduction",)),
    Case("few_columns", "layer_norm", lambda g: _random(g, 6, 4),
         note="4 columns: the variance divides by 4 (biased), not 3", tags=("variance",)),
    Case("far_from_zero", "layer_norm", lambda g: _random(g, 4, 256, shift=1000.0),
         note="rows with mean 1000 and spread 1: E[x^2] - E[x]^2 cancels catastrophically in "
              "float32", tags=("variance",)),
    Case("large_eps", "layer_norm", lambda g: _random(g, 6, 24, scale=0.1, eps=1.0),
         note="eps = 1 with small inputs: eps inside the square root", tags=("eps",)),
    Case("constant_rows", "layer_norm", _constant_rows,
         note="constant rows: variance 0, the output is the bias (no NaN)", tags=("eps",)),
    Case("non_contiguous", "layer_norm", _strided,
         note="a transposed x and a strided weight (the bindings copy them)", tags=("basic",)),
]

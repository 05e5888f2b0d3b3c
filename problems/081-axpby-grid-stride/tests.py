"""Tests of problem 81. Small: on a CPU every kernel runs in the emulation (a coroutine per
thread)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, *shape: int, a: float = 1.5, b: float = -0.5) -> Call:
    return Call((torch.randn(*shape, generator=gen), torch.randn(*shape, generator=gen), a, b))


def _strided(gen: torch.Generator) -> Call:
    wide = torch.randn(30, 64, generator=gen)
    return Call((wide[:, ::2], torch.randn(32, 30, generator=gen).t(), 2.0, 3.0))


CASES: list[Case] = [
    Case("example_small", "axpby",
         lambda g: Call((torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]),
                         torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0]), 2.0, 0.5)),
         public=True, note="five elements, a = 2 and b = 0.5", tags=("basic",)),
    Case("example_matrix", "axpby",
         lambda g: Call((torch.tensor([[1.0, -1.0], [0.5, 0.0]]),
                         torch.tensor([[1.0, 1.0], [1.0, 1.0]]), -1.0, 3.0)),
         public=True, note="a 2 x 2 matrix: the kernel sees 4 elements in a row", tags=("basic",)),
    Case("one_element", "axpby", lambda g: _random(g, 1), note="n = 1", tags=("bounds",)),
    Case("not_a_multiple_of_the_block", "axpby", lambda g: _random(g, 1000),
         note="n = 1000: the last block is partial (bound each access by n)", tags=("bounds",)),
    Case("one_past_a_block", "axpby", lambda g: _random(g, 257),
         note="n = 257: one element past a block of 256", tags=("bounds",)),
    Case("large", "axpby", lambda g: _random(g, 4096, a=0.25, b=4.0),
         note="n = 4096: more elements than a small grid has threads", tags=("bounds",)),
    Case("matrix_with_a_tail", "axpby", lambda g: _random(g, 33, 31),
         note="a [33, 31] matrix: 1023 elements", tags=("bounds",)),
    Case("zero_coefficients", "axpby", lambda g: _random(g, 300, a=0.0, b=1.0),
         note="a = 0 returns y exactly", tags=("basic",)),
    Case("empty", "axpby",
         lambda g: Call((torch.zeros(0), torch.zeros(0), 1.0, 1.0)),
         note="n = 0: nothing to launch, an empty result", tags=("empty",)),
    Case("non_contiguous", "axpby", _strided,
         note="x every other column of a wider matrix, y transposed (the bindings copy them)",
         tags=("basic",)),
]

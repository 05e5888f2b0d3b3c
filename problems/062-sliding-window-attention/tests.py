"""Tests of problem 62. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _example(window: int) -> Call:
    v = torch.tensor([[[[1.0], [2.0], [3.0], [4.0]]]])
    return Call((torch.ones(1, 1, 4, 1), torch.zeros(1, 1, 4, 1), v, window))


def _random(gen: torch.Generator, *, b: int = 2, h: int = 2, t: int = 20, d: int = 8,
            window: int = 3, scale: float = 1.0, dtype: torch.dtype = torch.float32) -> Call:
    q, k, v = (torch.randn(b, h, t, d, generator=gen) for _ in range(3))
    return Call(((q * scale).to(dtype), k.to(dtype), v.to(dtype), window))


CASES: list[Case] = [
    Case("example_window_two", "sliding_window_attention", lambda g: _example(2), public=True,
         note="window 2: each query averages itself and the key before it"),
    Case("example_window_covers_all", "sliding_window_attention", lambda g: _example(10),
         public=True, note="a window longer than the sequence is plain causal attention"),
    Case("example_window_zero", "sliding_window_attention", lambda g: _example(0), public=True,
         note="window 0 raises ValueError", tags=("errors",)),
    Case("window_three", "sliding_window_attention", lambda g: _random(g, window=3),
         note="window 3: exactly 3 keys, not 4"),
    Case("window_one", "sliding_window_attention", lambda g: _random(g, window=1),
         note="window 1: each query sees only itself (output = its own value)"),
    Case("window_equals_t", "sliding_window_attention", lambda g: _random(g, window=20),
         note="window = T: causal attention"),
    Case("window_odd_long", "sliding_window_attention", lambda g: _random(g, t=37, window=11),
         note="window 11 over 37 tokens"),
    Case("long_sequence", "sliding_window_attention",
         lambda g: _random(g, b=1, h=2, t=600, d=16, window=64),
         note="T = 600, window 64: the band crosses many blocks"),
    Case("negative_window", "sliding_window_attention", lambda g: _random(g, window=-2),
         note="a negative window raises ValueError", tags=("errors",)),
    Case("large_scores", "sliding_window_attention", lambda g: _random(g, window=5, scale=50.0),
         note="scores in the hundreds"),
    Case("bf16", "sliding_window_attention", lambda g: _random(g, window=4, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("bfloat16",)),
    Case("grads", "sliding_window_attention", lambda g: _random(g, b=1, t=9, window=3),
         grad_wrt=(0, 1, 2), note="gradients w.r.t. q, k and v", tags=("gradients",)),
]

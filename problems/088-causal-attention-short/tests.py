"""Tests of problem 88: small enough for the CPU emulation (H * T blocks, T <= 200, d <= 128)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, heads: int, tokens: int, dim: int, scale: float = 1.0) -> Call:
    q, k, v = (torch.randn(heads, tokens, dim, generator=gen) for _ in range(3))
    return Call((q * scale, k * scale, v))


def _equal_scores(gen: torch.Generator) -> Call:
    v = torch.randn(2, 12, 8, generator=gen)
    return Call((torch.zeros(2, 12, 8), torch.randn(2, 12, 8, generator=gen), v))


def _fused_qkv(gen: torch.Generator) -> Call:
    qkv = torch.randn(2, 10, 3 * 16, generator=gen)
    return Call((qkv[..., :16], qkv[..., 16:32], qkv[..., 32:]))


CASES: list[Case] = [
    Case("example_small", "causal_attention",
         lambda g: Call((torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]),
                         torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]),
                         torch.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]))),
         public=True, note="one head, T = 3, d = 2: row 0 sees only key 0, row 2 all three",
         tags=("basic",)),
    Case("example_two_heads", "causal_attention",
         lambda g: Call((torch.zeros(2, 2, 1), torch.zeros(2, 2, 1),
                         torch.tensor([[[2.0], [4.0]], [[-1.0], [1.0]]]))),
         public=True, note="q = 0: equal weights, each row averages v over keys 0..i, per head",
         tags=("basic",)),
    Case("random", "causal_attention", lambda g: _random(g, 2, 17, 16),
         note="2 heads, T = 17, d = 16", tags=("basic",)),
    Case("one_token", "causal_attention", lambda g: _random(g, 3, 1, 8),
         note="T = 1: the output is v", tags=("causal",)),
    Case("head_dim_one", "causal_attention", lambda g: _random(g, 2, 9, 1),
         note="d = 1", tags=("basic",)),
    Case("head_dim_128", "causal_attention", lambda g: _random(g, 1, 8, 128),
         note="d = 128, the largest head dimension", tags=("basic",)),
    Case("long_sequence", "causal_attention", lambda g: _random(g, 1, 200, 8),
         note="T = 200: more keys than a block of 128 threads", tags=("long",)),
    Case("large_scores", "causal_attention", lambda g: _random(g, 2, 16, 16, scale=10.0),
         note="scores of several hundred: exp overflows float32 unless the row's maximum is "
              "subtracted first", tags=("stability",)),
    Case("equal_scores", "causal_attention", _equal_scores,
         note="q = 0: row i is the mean of v[0..i] (the diagonal key included)",
         tags=("causal",)),
    Case("non_contiguous", "causal_attention", _fused_qkv,
         note="q, k, v are slices of one fused [2, 10, 48] buffer (the bindings pass them "
              "contiguous)", tags=("basic",)),
]

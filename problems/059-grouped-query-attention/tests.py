"""Tests of problem 59. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, *, b: int = 2, hq: int = 8, hkv: int = 4, t: int = 9, d: int = 8,
            scale: float = 1.0, dtype: torch.dtype = torch.float32) -> Call:
    q = torch.randn(b, hq, t, d, generator=gen) * scale
    k, v = torch.randn(b, hkv, t, d, generator=gen), torch.randn(b, hkv, t, d, generator=gen)
    return Call((q.to(dtype), k.to(dtype), v.to(dtype)))


CASES: list[Case] = [
    Case("example_head_mapping", "gqa_attention",
         lambda g: Call((torch.ones(1, 4, 1, 1), torch.ones(1, 2, 1, 1),
                         torch.tensor([[[[1.0]], [[2.0]]]]))),
         public=True, note="T = 1: query heads 0, 1 read value head 0; heads 2, 3 read head 1"),
    Case("example_not_divisible", "gqa_attention",
         lambda g: Call((torch.ones(1, 3, 1, 1), torch.ones(1, 2, 1, 1), torch.ones(1, 2, 1, 1))),
         public=True, note="3 query heads over 2 key/value heads raises ValueError", tags=("errors",)),
    Case("groups_of_two", "gqa_attention", lambda g: _random(g, hq=8, hkv=4),
         note="8 query heads, 4 kv heads: consecutive pairs share, not heads h and h + 4"),
    Case("groups_of_four", "gqa_attention", lambda g: _random(g, hq=8, hkv=2),
         note="8 query heads, 2 kv heads"),
    Case("multi_head", "gqa_attention", lambda g: _random(g, hq=4, hkv=4),
         note="H_kv = H_q: ordinary multi-head attention"),
    Case("multi_query", "gqa_attention", lambda g: _random(g, hq=6, hkv=1),
         note="H_kv = 1: multi-query attention"),
    Case("six_over_four", "gqa_attention", lambda g: _random(g, hq=6, hkv=4),
         note="4 kv heads do not divide 6 query heads: ValueError", tags=("errors",)),
    Case("more_kv_than_q", "gqa_attention", lambda g: _random(g, hq=2, hkv=4),
         note="more kv heads than query heads: ValueError", tags=("errors",)),
    Case("large_scores", "gqa_attention", lambda g: _random(g, hq=6, hkv=3, scale=50.0),
         note="scores in the hundreds"),
    Case("bf16", "gqa_attention", lambda g: _random(g, hq=8, hkv=2, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("bfloat16",)),
    Case("grads", "gqa_attention", lambda g: _random(g, b=1, hq=6, hkv=2, t=5), grad_wrt=(0, 1, 2),
         note="gradients: each kv head sums the gradients of its whole group", tags=("gradients",)),
]

"""Tests of problem 58. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

LN3 = 1.0986123  # log(3) in float32: the two keys get weights 1/4 and 3/4
EX = ([[[[1.0], [1.0]]]], [[[[0.0], [LN3]]]], [[[[4.0], [8.0]]]])


def _example(causal: bool) -> Call:
    return Call(tuple(torch.tensor(x) for x in EX) + (causal,))


def _random(gen: torch.Generator, *, b: int = 2, h: int = 2, t: int = 50, s: int | None = None,
            d: int = 8, causal: bool = False, scale: float = 1.0) -> Call:
    s = t if s is None else s
    q = torch.randn(b, h, t, d, generator=gen) * scale
    k, v = torch.randn(b, h, s, d, generator=gen), torch.randn(b, h, s, d, generator=gen)
    return Call((q, k, v, causal))


CASES: list[Case] = [
    Case("example_two_keys", "flash_attention", lambda g: _example(False), public=True,
         note="weights 1/4 and 3/4 for both queries: out 7, lse log 4"),
    Case("example_two_keys_causal", "flash_attention", lambda g: _example(True), public=True,
         note="causal: query 0 sees key 0 only (out 4, lse 0)"),
    Case("random_cross", "flash_attention", lambda g: _random(g, t=50, s=37),
         note="not causal, 50 queries and 37 keys"),
    Case("random_causal", "flash_attention", lambda g: _random(g, t=45, causal=True),
         note="causal, T = 45"),
    Case("causal_lengths_differ", "flash_attention",
         lambda g: _random(g, t=6, s=8, causal=True),
         note="causal with 6 queries and 8 keys raises ValueError", tags=("errors",)),
    Case("large_scores", "flash_attention", lambda g: _random(g, t=40, scale=40.0, causal=True),
         note="scores in the hundreds: the running maximum must be subtracted"),
    Case("one_key", "flash_attention", lambda g: _random(g, t=5, s=1),
         note="a single key: every weight is 1, lse is the score"),
    Case("many_blocks", "flash_attention", lambda g: _random(g, b=1, h=2, t=700, s=1300, d=16),
         note="T = 700, S = 1300: several blocks with partial last ones"),
    Case("many_blocks_causal", "flash_attention",
         lambda g: _random(g, b=1, h=2, t=1100, d=16, causal=True),
         note="causal, T = 1100: blocks that straddle the diagonal"),
    Case("long_causal_under_limit", "flash_attention",
         lambda g: _random(g, b=1, h=1, t=16384, d=16, causal=True),
         note="T = 16384: a 1 GiB score matrix does not fit in 512 MiB"),
]

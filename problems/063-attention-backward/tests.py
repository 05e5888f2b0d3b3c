"""Tests of problem 63. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, *, b: int = 2, h: int = 2, t: int = 7, s: int | None = None,
            d: int = 8, causal: bool = False, scale: float = 1.0,
            dtype: torch.dtype = torch.float32, zero_grad: bool = False) -> Call:
    s = t if s is None else s
    q = torch.randn(b, h, t, d, generator=gen) * scale
    k, v = torch.randn(b, h, s, d, generator=gen), torch.randn(b, h, s, d, generator=gen)
    go = torch.zeros(b, h, t, d) if zero_grad else torch.randn(b, h, t, d, generator=gen)
    return Call((q.to(dtype), k.to(dtype), v.to(dtype), go.to(dtype), causal))


CASES: list[Case] = [
    Case("example_one_key", "attention_backward",
         lambda g: Call((torch.tensor([[[[1.0]]]]), torch.tensor([[[[2.0]]]]),
                         torch.tensor([[[[3.0]]]]), torch.tensor([[[[1.0]]]]))),
         public=True, note="one key: its weight is always 1, so dq = dk = 0 and dv = grad_out"),
    Case("example_two_keys", "attention_backward",
         lambda g: Call((torch.tensor([[[[0.0]]]]), torch.tensor([[[[1.0], [-1.0]]]]),
                         torch.tensor([[[[2.0], [4.0]]]]), torch.tensor([[[[1.0]]]]))),
         public=True, note="equal weights 1/2: dq = -1, dk = 0 (q is 0), dv = [1/2, 1/2]"),
    Case("random_cross", "attention_backward", lambda g: _random(g, t=7, s=11),
         note="not causal, 7 queries and 11 keys"),
    Case("random_causal", "attention_backward", lambda g: _random(g, t=9, causal=True),
         note="causal: masked entries carry no gradient"),
    Case("causal_lengths_differ", "attention_backward",
         lambda g: _random(g, t=4, s=6, causal=True), note="causal with T != S: ValueError", tags=("errors",)),
    Case("more_heads", "attention_backward", lambda g: _random(g, b=3, h=4, t=5, s=5),
         note="B = 3, H = 4"),
    Case("head_dim_64", "attention_backward", lambda g: _random(g, t=6, d=64, causal=True),
         note="d = 64: the 1/sqrt(d) scale appears in dq and dk"),
    Case("large_scores", "attention_backward", lambda g: _random(g, t=8, scale=30.0, causal=True),
         note="scores in the hundreds: the softmax must stay stable"),
    Case("zero_upstream", "attention_backward", lambda g: _random(g, zero_grad=True),
         note="grad_out = 0: every gradient is zero"),
    Case("bf16", "attention_backward", lambda g: _random(g, t=6, dtype=torch.bfloat16, causal=True),
         note="bfloat16 in: compute in float32, return bfloat16 gradients", tags=("bfloat16",)),
]

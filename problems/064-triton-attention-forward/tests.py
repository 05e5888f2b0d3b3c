"""Tests of problem 64. Kept small: on a CPU every kernel runs in Triton's interpreter."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _uniform(causal: bool) -> Call:
    v = torch.stack((torch.ones(16), torch.full((16,), 3.0)))[None, None]  # [1, 1, 2, 16]
    return Call((torch.zeros(1, 1, 2, 16), torch.zeros(1, 1, 2, 16), v, causal))


def _random(gen: torch.Generator, *, b: int = 1, h: int = 2, t: int = 40, s: int | None = None,
            d: int = 16, causal: bool = False, scale: float = 1.0) -> Call:
    s = t if s is None else s
    q = torch.randn(b, h, t, d, generator=gen) * scale
    k, v = torch.randn(b, h, s, d, generator=gen), torch.randn(b, h, s, d, generator=gen)
    return Call((q, k, v, causal))


def _large_scores_close(expected: object, got: object) -> str | None:
    """The float32 tolerance with the absolute part scaled to these scores: q is 30 times
    larger, so are the rounding errors of each score, and where two keys nearly tie for the
    maximum the output moves with them (a correct kernel summing in another order was 1.4e-5
    off in 1 of 60 seeds, against atol 1e-5). Without the re-basing the output is Inf or NaN."""
    if not isinstance(got, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return "expected a tensor"
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"expected {expected.dtype} {tuple(expected.shape)}, got {got.dtype} {tuple(got.shape)}"
    if not bool(torch.isfinite(got).all()):
        return "the output holds Inf or NaN"
    if not torch.allclose(got, expected, atol=1e-4, rtol=1e-4):
        return f"values differ (largest difference {(got - expected).abs().max().item():.3g})"
    return None


CASES: list[Case] = [
    Case("example_uniform", "attention_forward", lambda g: _uniform(False), public=True,
         note="all scores 0: both queries average the two value rows (2.0 everywhere)"),
    Case("example_uniform_causal", "attention_forward", lambda g: _uniform(True), public=True,
         note="causal: query 0 sees only value row 0 (1.0), query 1 averages both (2.0)"),
    Case("causal_partial_blocks", "attention_forward", lambda g: _random(g, t=40, causal=True),
         note="causal, T = 40: the last block of queries and of keys is partial"),
    Case("cross_partial_blocks", "attention_forward", lambda g: _random(g, b=2, h=1, t=40, s=23),
         note="not causal, 40 queries and 23 keys: masked key columns must get no weight"),
    Case("head_dim_32_causal", "attention_forward",
         lambda g: _random(g, h=1, t=33, d=32, causal=True), note="d = 32, causal, T = 33"),
    Case("head_dim_64", "attention_forward", lambda g: _random(g, h=1, t=17, s=50, d=64),
         note="d = 64, more keys than queries"),
    Case("many_heads", "attention_forward", lambda g: _random(g, b=2, h=3, t=20, causal=True),
         note="B = 2, H = 3: one program per block of queries and head"),
    Case("large_scores", "attention_forward", lambda g: _random(g, h=1, t=48, scale=30.0),
         check=_large_scores_close, note="scores in the hundreds: the running maximum must re-base the accumulator"),
    Case("one_token", "attention_forward", lambda g: _random(g, h=1, t=1, causal=True),
         note="T = 1"),
    Case("causal_lengths_differ", "attention_forward",
         lambda g: _random(g, h=1, t=8, s=16, causal=True), note="causal with T != S: ValueError", tags=("errors",)),
]

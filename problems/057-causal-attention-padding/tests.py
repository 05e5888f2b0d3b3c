"""Tests of problem 57. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

# The examples: d = 1, all keys 0 (every allowed key gets the same weight), values 10, 20, 60.
EX_Q = [[[[1.0], [1.0], [1.0]]]]
EX_K = [[[[0.0], [0.0], [0.0]]]]
EX_V = [[[[10.0], [20.0], [60.0]]]]


def _example(mask: list[list[bool]] | None) -> Call:
    args = (torch.tensor(EX_Q), torch.tensor(EX_K), torch.tensor(EX_V))
    return Call(args + ((torch.tensor(mask),) if mask is not None else ()))


def _mask(gen: torch.Generator, b: int, t: int, kind: str) -> torch.Tensor:
    lengths = torch.randint(0, t + 1, (b,), generator=gen)
    lengths[0] = max(1, t // 2)  # at least one row with some padding and some tokens
    pos = torch.arange(t)[None, :]
    if kind == "left":
        return pos >= (t - lengths)[:, None]
    if kind == "right":
        return pos < lengths[:, None]
    return torch.rand(b, t, generator=gen) < 0.6  # holes anywhere


def _random(gen: torch.Generator, *, b: int = 3, h: int = 2, t: int = 9, d: int = 8,
            mask: str | None = "left", scale: float = 1.0,
            dtype: torch.dtype = torch.float32) -> Call:
    q, k, v = (torch.randn(b, h, t, d, generator=gen) for _ in range(3))
    args: tuple = ((q * scale).to(dtype), k.to(dtype), v.to(dtype))
    if mask is not None:
        args += (_mask(gen, b, t, mask),)
    return Call(args)


def _row_without_tokens(gen: torch.Generator) -> Call:
    call = _random(gen, b=3, mask="right")
    mask = call.args[3].clone()
    mask[1] = False
    return Call(call.args[:3] + (mask,))


CASES: list[Case] = [
    Case("example_no_mask", "causal_attention", lambda g: _example(None), public=True,
         note="no mask: query i averages the values of keys 0..i"),
    Case("example_left_padding", "causal_attention", lambda g: _example([[False, True, True]]),
         public=True, note="key 0 is padding: query 0 sees no key and its output is zero"),
    Case("example_right_padding", "causal_attention", lambda g: _example([[True, True, False]]),
         public=True, note="key 2 is padding: query 2 still attends keys 0 and 1"),
    Case("random_no_mask", "causal_attention", lambda g: _random(g, mask=None),
         note="no mask: plain causal attention with the 1/sqrt(d) scale"),
    Case("random_left_padding", "causal_attention", lambda g: _random(g, mask="left"),
         note="left padding: leading queries see no key and must give zeros, not NaN"),
    Case("random_right_padding", "causal_attention", lambda g: _random(g, mask="right"),
         note="right padding: padded queries attend the real keys before them"),
    Case("random_mask_holes", "causal_attention", lambda g: _random(g, mask="holes", t=12),
         note="padding anywhere in the row: the mask is applied to keys, not to queries"),
    Case("row_without_tokens", "causal_attention", _row_without_tokens,
         note="a batch row whose mask is all False: the whole row of outputs is zero"),
    Case("single_masked_token", "causal_attention",
         lambda g: Call((*(torch.randn(2, 1, 1, 4, generator=g) for _ in range(3)),
                         torch.tensor([[True], [False]]))),
         note="T = 1, one row masked"),
    Case("large_scores", "causal_attention", lambda g: _random(g, scale=60.0, mask="right"),
         note="scores in the hundreds: exponentials without the max subtracted overflow"),
    Case("head_dim_64", "causal_attention", lambda g: _random(g, d=64, t=6, mask="left"),
         note="d = 64: the scale is 1/sqrt(d), not 1/d"),
    Case("bf16", "causal_attention", lambda g: _random(g, dtype=torch.bfloat16, mask="left"),
         note="bfloat16 in, bfloat16 out, zeros for rows that see nothing", tags=("bfloat16",)),
    Case("grads_with_empty_rows", "causal_attention", lambda g: _random(g, mask="left", t=7),
         grad_wrt=(0, 1, 2),
         note="gradients w.r.t. q, k, v with fully masked rows: finite (zero), never NaN", tags=("gradients",)),
    Case("grads_no_mask", "causal_attention", lambda g: _random(g, mask=None, t=5), grad_wrt=(0, 1, 2),
         note="gradients without a mask", tags=("gradients",)),
]

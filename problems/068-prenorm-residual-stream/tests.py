"""Tests of problem 68. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _example_weights() -> dict[str, torch.Tensor]:
    return {"attn_norm": torch.ones(2), "mlp_norm": torch.ones(2),
            "wq": torch.zeros(2, 2), "wk": torch.zeros(2, 2), "wv": torch.eye(2),
            "wo": torch.eye(2), "w_gate": torch.zeros(1, 2), "w_up": torch.zeros(1, 2),
            "w_down": torch.zeros(2, 1)}


def _example_x() -> torch.Tensor:
    return torch.tensor([[[1.0, 0.0], [0.0, 2.0]]])


def _weights(gen: torch.Generator, d: int, f: int) -> dict[str, torch.Tensor]:
    def mat(rows: int, cols: int) -> torch.Tensor:
        return torch.randn(rows, cols, generator=gen) / cols**0.5

    return {
        "attn_norm": 1.0 + 0.2 * torch.randn(d, generator=gen),
        "wq": mat(d, d) * 2.0, "wk": mat(d, d) * 2.0, "wv": mat(d, d), "wo": mat(d, d),
        "mlp_norm": 1.0 + 0.2 * torch.randn(d, generator=gen),
        "w_gate": mat(f, d), "w_up": mat(f, d), "w_down": mat(d, f),
    }


def _block(gen: torch.Generator, b: int = 2, t: int = 5, d: int = 16, heads: int = 4,
           f: int = 24, eps: float | None = None) -> Call:
    x = torch.randn(b, t, d, generator=gen)
    weights = _weights(gen, d, f)
    return Call((x, weights, heads) if eps is None else (x, weights, heads, eps))


def _block_views(gen: torch.Generator) -> Call:
    """The stream transposed from a sequence-first buffer, wo and w_down stored transposed."""
    b, t, d, f = 3, 4, 8, 12
    x = torch.randn(t, b, d, generator=gen).transpose(0, 1)
    weights = _weights(gen, d, f)
    weights["wo"] = weights["wo"].t().contiguous().t()
    weights["w_down"] = weights["w_down"].t().contiguous().t()
    return Call((x, weights, 2))


def _stack(gen: torch.Generator, layers: int, b: int = 2, t: int = 4, d: int = 12,
           heads: int = 3, f: int = 20) -> Call:
    x = torch.randn(b, t, d, generator=gen)
    stack = [_weights(gen, d, f) for _ in range(layers)]
    return Call((x, stack, 1.0 + 0.2 * torch.randn(d, generator=gen), heads))


def _extra_key(gen: torch.Generator) -> Call:
    call = _block(gen, d=8, heads=2, f=8)
    weights = dict(call.args[1])
    weights["bias"] = torch.zeros(8)  # every needed key is there, plus one
    return Call((call.args[0], weights, 2))


def _stack_bad_layer(gen: torch.Generator) -> Call:
    call = _stack(gen, 2, d=8, heads=2, f=8)
    layers = [dict(layer) for layer in call.args[1]]
    layers[1]["bias"] = torch.zeros(8)  # the second layer has an extra key
    return Call((call.args[0], layers, *call.args[2:]))


def _bad_key(gen: torch.Generator) -> Call:
    call = _block(gen, d=8, heads=2, f=8)
    weights = dict(call.args[1])
    weights["norm"] = weights.pop("mlp_norm")
    return Call((call.args[0], weights, 2))


def _bad_shape(gen: torch.Generator) -> Call:
    call = _block(gen, d=8, heads=2, f=8)
    weights = dict(call.args[1])
    weights["w_down"] = weights["w_down"].t().contiguous()  # [f, d]: with f == d it would pass
    weights["w_up"] = torch.randn(10, 8, generator=gen)
    return Call((call.args[0], weights, 2))


CASES: list[Case] = [
    Case("example_block", "prenorm_block",
         lambda g: Call((_example_x(), _example_weights(), 1), {"eps": 0.0}),
         public=True, note="uniform causal attention over normalised rows, added to the raw stream"),
    Case("example_stack", "residual_stream",
         lambda g: Call((_example_x(), [_example_weights()], torch.ones(2), 1), {"eps": 0.0}),
         public=True, note="one block: streams = [x, block(x)], out = final RMSNorm of the last"),
    Case("block_random", "prenorm_block", lambda g: _block(g),
         note="B = 2, T = 5, d = 16, 4 heads of 4, f = 24", tags=("heads",)),
    Case("block_one_head", "prenorm_block", lambda g: _block(g, heads=1, d=8, f=8),
         note="one head of d (the scale is 1/sqrt(d) here)"),
    Case("block_many_heads", "prenorm_block", lambda g: _block(g, b=1, t=7, d=24, heads=6, f=40),
         note="6 heads of 4: which features form a head", tags=("heads",)),
    Case("block_t1", "prenorm_block", lambda g: _block(g, t=1),
         note="T = 1: each position attends to itself only"),
    Case("block_eps_positional", "prenorm_block",
         lambda g: Call((torch.randn(2, 3, 8, generator=g) * 0.01, _weights(g, 8, 8), 2, 1e-4)),
         note="eps = 1e-4 passed positionally, on a stream small enough for it to matter"),
    Case("block_grad", "prenorm_block", lambda g: _block(g, b=1, t=4, d=8, heads=2, f=12),
         grad_wrt=(0,), note="gradient w.r.t. the stream: identity path plus both sublayers"),
    Case("block_non_contiguous", "prenorm_block", _block_views,
         note="a transposed stream and weights stored transposed", tags=("non_contiguous",)),
    Case("block_heads_not_dividing", "prenorm_block", lambda g: _block(g, d=10, heads=4),
         note="4 heads do not divide d = 10: ValueError", tags=("validation",)),
    Case("block_bad_key", "prenorm_block", _bad_key,
         note="a weight dict with a wrong key: ValueError", tags=("validation",)),
    Case("block_extra_key", "prenorm_block", _extra_key,
         note="every key plus an extra one: ValueError (exactly the keys)", tags=("validation",)),
    Case("block_bad_shape", "prenorm_block", _bad_shape,
         note="w_up [10, d] against w_gate [f, d]: ValueError", tags=("validation",)),
    Case("stack_three", "residual_stream", lambda g: _stack(g, 3),
         note="three blocks: four streams, the final norm on the last"),
    Case("stack_empty", "residual_stream", lambda g: _stack(g, 0),
         note="no layers: streams = [x], out = the final RMSNorm of x"),
    Case("stack_bad_final_norm", "residual_stream",
         lambda g: Call((torch.randn(1, 2, 4, generator=g), [], torch.ones(3), 2)),
         note="final_norm [3] for d = 4: ValueError", tags=("validation",)),
    Case("stack_bad_layer", "residual_stream", _stack_bad_layer,
         note="the second of two layers has an extra key: ValueError", tags=("validation",)),
]

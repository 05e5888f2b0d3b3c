"""Tests of problem 67. Public cases are the statement's examples, value for value.

The sizes of published models are facts from their configs (dim, multiple_of,
ffn_dim_multiplier and the intermediate size they give)."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _ffn(gen: torch.Generator, lead: tuple[int, ...] = (3, 5), d: int = 32, f: int = 48, *,
         dtype: torch.dtype = torch.float32, gate_scale: float = 1.0) -> Call:
    x = torch.randn(*lead, d, generator=gen)
    w_gate = torch.randn(f, d, generator=gen) * gate_scale / d**0.5
    w_up = torch.randn(f, d, generator=gen) / d**0.5
    w_down = torch.randn(d, f, generator=gen) / f**0.5
    return Call(tuple(t.to(dtype) for t in (x, w_gate, w_up, w_down)))


def _ffn_views(gen: torch.Generator) -> Call:
    """w_down stored [f, d] and used transposed; x every other column of a wider buffer."""
    d, f = 16, 24
    x = torch.randn(4, 2 * d, generator=gen)[:, 1::2]
    w_gate = torch.randn(f, d, generator=gen) / 4
    w_up = torch.randn(f, d, generator=gen) / 4
    w_down = (torch.randn(f, d, generator=gen) / 5).t()
    return Call((x, w_gate, w_up, w_down))


EXAMPLE = (
    [[1.0, 2.0]],
    [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
    [[1.0, 1.0], [2.0, 0.0], [0.0, 1.0]],
    [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
)

CASES: list[Case] = [
    Case("example_swiglu_ffn", "swiglu_ffn",
         lambda g: Call(tuple(torch.tensor(t) for t in EXAMPLE)),
         public=True, note="d = 2, f = 3: SiLU on the gate, times the up projection, then down"),
    Case("example_llama2_7b", "swiglu_hidden_size", lambda g: Call((4096, 256)),
         public=True, note="2/3 of 4d = 10922, rounded up to a multiple of 256"),
    Case("example_llama3_8b", "swiglu_hidden_size", lambda g: Call((4096, 1024, 1.3)),
         public=True, note="with ffn_dim_multiplier = 1.3 and multiple_of = 1024",
         tags=("multiplier",)),
    Case("example_param_count", "swiglu_param_count", lambda g: Call((4096, 11008)),
         public=True, note="three matrices of 4096 x 11008"),
    # hidden: the layer
    Case("ffn_random", "swiglu_ffn", lambda g: _ffn(g),
         note="[3, 5, 32] through f = 48 (d != f: the transposes matter)"),
    Case("ffn_one_token", "swiglu_ffn", lambda g: _ffn(g, (), 24, 40),
         note="x of shape [d]"),
    Case("ffn_bf16", "swiglu_ffn", lambda g: _ffn(g, (6,), 32, 64, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("bfloat16",)),
    Case("ffn_large_gate", "swiglu_ffn", lambda g: _ffn(g, (4,), 16, 24, gate_scale=80.0),
         note="gate pre-activations in the hundreds: exp overflows, silu must not"),
    Case("ffn_non_contiguous", "swiglu_ffn", _ffn_views,
         note="a weight stored transposed and strided activations", tags=("non_contiguous",)),
    Case("ffn_mismatched_up", "swiglu_ffn",
         lambda g: Call((torch.randn(2, 8, generator=g), torch.randn(12, 8, generator=g),
                         torch.randn(10, 8, generator=g), torch.randn(8, 12, generator=g))),
         note="w_up [10, 8] against w_gate [12, 8]: ValueError", tags=("validation",)),
    Case("ffn_down_not_transposed", "swiglu_ffn",
         lambda g: Call((torch.randn(2, 8, generator=g), torch.randn(12, 8, generator=g),
                         torch.randn(12, 8, generator=g), torch.randn(12, 8, generator=g))),
         note="w_down [12, 8] instead of [8, 12]: ValueError", tags=("validation",)),
    # hidden: the width rule
    Case("size_llama2_13b", "swiglu_hidden_size", lambda g: Call((5120, 256)),
         note="Llama-2-13B: 13824"),
    Case("size_llama2_70b", "swiglu_hidden_size", lambda g: Call((8192, 4096, 1.3)),
         note="Llama-2-70B: 28672", tags=("multiplier",)),
    Case("size_llama3_405b", "swiglu_hidden_size", lambda g: Call((16384, 4096, 1.2)),
         note="Llama-3.1-405B: 53248", tags=("multiplier",)),
    Case("size_keyword_multiplier", "swiglu_hidden_size",
         lambda g: Call((1000,), {"multiple_of": 64, "ffn_dim_multiplier": 0.75}),
         note="a multiplier below one, by keyword", tags=("multiplier",)),
    Case("size_default_multiple", "swiglu_hidden_size", lambda g: Call((768,)),
         note="multiple_of defaults to 256: 2048"),
    Case("size_multiple_of_one", "swiglu_hidden_size", lambda g: Call((100, 1)),
         note="multiple_of = 1: no rounding, 266"),
    Case("size_already_multiple", "swiglu_hidden_size", lambda g: Call((96, 256)),
         note="2/3 of 4d = 256 exactly: no extra step up"),
    Case("size_bad_multiple", "swiglu_hidden_size", lambda g: Call((512, 0)),
         note="multiple_of = 0: ValueError", tags=("validation",)),
    Case("size_bad_dim", "swiglu_hidden_size", lambda g: Call((0, 256)),
         note="dim = 0: ValueError", tags=("validation",)),
    # hidden: the count
    Case("count_bias", "swiglu_param_count", lambda g: Call((4096, 11008, True)),
         note="biases: hidden + hidden + dim"),
    Case("count_large", "swiglu_param_count", lambda g: Call((16384, 53248), {"bias": False}),
         note="one Llama-3.1-405B layer's MLP"),
    Case("count_bad_hidden", "swiglu_param_count", lambda g: Call((64, 0)),
         note="hidden = 0: ValueError", tags=("validation",)),
    Case("count_bad_dim", "swiglu_param_count", lambda g: Call((-4, 128, True)),
         note="dim = -4: ValueError, not a negative count", tags=("validation",)),
]

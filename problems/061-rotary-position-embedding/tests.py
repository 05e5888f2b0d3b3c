"""Tests of problem 61. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

E0 = [1.0, 0.0, 0.0, 0.0]


def _random(gen: torch.Generator, *, b: int = 2, h: int = 3, t: int = 7, d: int = 16,
            offset: int | str = 0, max_offset: int = 3000, dtype: torch.dtype = torch.float32,
            **kwargs: object) -> Call:
    x = torch.randn(b, h, t, d, generator=gen).to(dtype)
    if offset == "rows":
        off: object = torch.randint(0, max_offset, (b,), generator=gen)
    elif offset == "random":
        off = int(torch.randint(1, max_offset, (1,), generator=gen))
    else:
        off = offset
    return Call((x, off), dict(kwargs))


CASES: list[Case] = [
    Case("example_rotate_half", "apply_rope",
         lambda g: Call((torch.tensor([[[E0]]]), 1)), public=True,
         note="position 1, pairs (i, i + d/2): channel 0 turns into channel 2"),
    Case("example_interleaved", "apply_rope",
         lambda g: Call((torch.tensor([[[E0]]]), 1), {"interleaved": True}), public=True,
         note="position 1, pairs (2i, 2i + 1): channel 0 turns into channel 1"),
    Case("example_offsets_per_row", "apply_rope",
         lambda g: Call((torch.tensor([[[E0]], [[E0]]]), torch.tensor([0, 1]))), public=True,
         note="one offset per batch row: row 0 at position 0 is unchanged"),
    Case("half_no_offset", "apply_rope", lambda g: _random(g),
         note="rotate-half, positions 0..T-1"),
    Case("interleaved_no_offset", "apply_rope", lambda g: _random(g, interleaved=True),
         note="interleaved pairs"),
    Case("half_offset", "apply_rope", lambda g: _random(g, offset="random"),
         note="an int offset: positions offset..offset+T-1"),
    Case("interleaved_offset", "apply_rope",
         lambda g: _random(g, offset="random", interleaved=True), note="interleaved with an offset"),
    Case("offsets_per_row", "apply_rope", lambda g: _random(g, b=4, offset="rows"),
         note="int64 [B] offsets: each row starts elsewhere"),
    Case("decode_offsets_per_row", "apply_rope",
         lambda g: _random(g, b=5, t=1, offset="rows", interleaved=True),
         note="T = 1 with per-row offsets, as in a decode step"),
    Case("other_base", "apply_rope", lambda g: _random(g, offset=50, base=500000.0),
         note="base = 500000 passed by keyword"),
    Case("head_dim_2", "apply_rope", lambda g: _random(g, d=2, offset=3),
         note="d = 2: a single pair, both conventions agree"),
    Case("head_dim_128", "apply_rope", lambda g: _random(g, d=128, t=3, offset=7),
         note="d = 128: the frequency exponent is -2i/d"),
    Case("bf16_large_positions", "apply_rope",
         lambda g: _random(g, offset="random", dtype=torch.bfloat16),
         note="bfloat16 at positions in the thousands: angles in bfloat16 are useless", tags=("bfloat16",)),
    Case("bf16_interleaved_rows", "apply_rope",
         lambda g: _random(g, b=3, offset="rows", dtype=torch.bfloat16, interleaved=True),
         note="bfloat16, interleaved, per-row offsets", tags=("bfloat16",)),
    Case("odd_dim", "apply_rope", lambda g: _random(g, d=7), note="odd d raises ValueError", tags=("errors",)),
]

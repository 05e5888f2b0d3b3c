"""Tests of problem 60. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

NAN = float("nan")
EX_K = [[[[0.0], [0.0], [NAN]]], [[[NAN], [NAN], [NAN]]]]
EX_V = [[[[2.0], [4.0], [NAN]]], [[[NAN], [NAN], [NAN]]]]


def _example(lengths: list[int]) -> Call:
    return Call((torch.ones(2, 1, 1), torch.zeros(2, 1, 1), torch.tensor([[[9.0]], [[7.0]]]),
                 torch.tensor(EX_K), torch.tensor(EX_V), torch.tensor(lengths)))


def _random(gen: torch.Generator, *, b: int = 4, h: int = 2, slots: int = 10, d: int = 8,
            lengths: list[int] | None = None, stale: str = "random", scale: float = 1.0,
            dtype: torch.dtype = torch.float32) -> Call:
    q, k_new, v_new = (torch.randn(b, h, d, generator=gen) for _ in range(3))
    k_cache = torch.randn(b, h, slots, d, generator=gen)
    v_cache = torch.randn(b, h, slots, d, generator=gen)
    if lengths is None:
        lens = torch.randint(0, slots, (b,), generator=gen)
        lens[0] = slots // 2  # rows of different lengths, at least one non-empty
    else:
        lens = torch.tensor(lengths)
    stale_slots = torch.arange(slots)[None, :] >= lens.clamp(min=0)[:, None]  # [B, S]
    where = stale_slots[:, None, :, None]
    if stale == "nan":
        k_cache, v_cache = k_cache.masked_fill(where, NAN), v_cache.masked_fill(where, NAN)
    else:  # an earlier, longer sequence left large values behind
        k_cache = torch.where(where, k_cache * 30.0, k_cache)
        v_cache = torch.where(where, v_cache * 100.0, v_cache)
    cast = lambda x: x.to(dtype)  # noqa: E731
    return Call((cast(q * scale), cast(k_new), cast(v_new), cast(k_cache), cast(v_cache), lens))


CASES: list[Case] = [
    Case("example_ragged", "decode_step", lambda g: _example([2, 0]), public=True, allow_nan=True,
         note="row 0 has 2 cached tokens, row 1 none; NaN in unused slots never reaches the output"),
    Case("example_cache_full", "decode_step", lambda g: _example([3, 0]), public=True,
         note="row 0 already fills its 3 slots: IndexError", tags=("errors",)),
    Case("random_ragged", "decode_step", lambda g: _random(g),
         note="ragged lengths; stale slots hold large values from an earlier sequence"),
    Case("stale_nan", "decode_step", lambda g: _random(g, stale="nan"), allow_nan=True,
         note="stale slots hold NaN: masking must not multiply or add them in"),
    Case("all_empty", "decode_step", lambda g: _random(g, lengths=[0, 0, 0, 0], stale="nan"),
         allow_nan=True, note="empty caches: each output is the new value itself"),
    Case("last_slot", "decode_step", lambda g: _random(g, lengths=[9, 3, 9, 0]),
         note="rows that fill the last free slot"),
    Case("full_row", "decode_step", lambda g: _random(g, lengths=[2, 10, 4, 1]),
         note="one row with no free slot: IndexError", tags=("errors",)),
    Case("negative_length", "decode_step", lambda g: _random(g, lengths=[2, -1, 4, 1]),
         note="a negative length: IndexError", tags=("errors",)),
    Case("large_scores", "decode_step", lambda g: _random(g, scale=40.0),
         note="scores in the hundreds"),
    Case("bf16", "decode_step", lambda g: _random(g, dtype=torch.bfloat16, stale="nan"),
         allow_nan=True, note="bfloat16 query and caches: bfloat16 out", tags=("bfloat16",)),
]

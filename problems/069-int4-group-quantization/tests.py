"""Tests of problem 69. Public cases are the statement's examples, value for value.

Random weights are built so that no code is a near-tie: each group's maximum |w| = a has an
8-bit mantissa (exact in bfloat16, so a bfloat16 input has the same scale s = a / 7), and the
other elements are (c + u) s with c in [-6, 6] and |u| <= 0.45; in bfloat16 the rounding of w
moves u by at most 0.013. No correct way of computing w / s (a division, a product with 1 / s,
float64) can land on the other side of a half. The tie cases use power-of-two scales and exact
halves."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _grid(gen: torch.Generator, n: int, k: int, group: int, *, ties: bool = False,
          zero_groups: int = 0) -> torch.Tensor:
    groups = n * k // group
    exponent = torch.randint(-4, 4, (groups, 1), generator=gen).double()
    if ties:  # power-of-two scales: every value below is exact, and so is w / s
        scale = 2.0**exponent
    else:  # the group maximum a has an 8-bit mantissa (exact in bfloat16); s = a / 7 does not
        top = torch.randint(128, 256, (groups, 1), generator=gen).double() / 128 * 2.0**exponent
        scale = (top.float() / 7.0).double()
    codes = torch.randint(-6, 7, (groups, group), generator=gen).double()
    if ties:
        frac = torch.where(torch.rand(groups, group, generator=gen) < 0.5, 0.5, -0.5).double()
        codes = codes.clamp(-5, 5)  # +-0.5 keeps |c + u| <= 5.5 < 7
    else:
        frac = (torch.rand(groups, group, generator=gen) * 0.9 - 0.45).double()
    values = (codes + frac) * scale
    anchor = torch.randint(0, group, (groups,), generator=gen)
    sign = torch.where(torch.rand(groups, generator=gen) < 0.5, -1.0, 1.0).double()
    top_value = 7.0 * scale[:, 0] if ties else top[:, 0]
    values[torch.arange(groups), anchor] = sign * top_value
    if zero_groups:
        values[torch.randperm(groups, generator=gen)[:zero_groups]] = 0.0
    return values.reshape(n, k).float()


def _quantize(gen: torch.Generator, n: int = 8, k: int = 64, group: int = 16, *,
              dtype: torch.dtype = torch.float32, ties: bool = False, zero_groups: int = 0) -> Call:
    return Call((_grid(gen, n, k, group, ties=ties, zero_groups=zero_groups).to(dtype), group))


def _codes(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randint(-8, 8, shape, generator=gen, dtype=torch.int8)


def _bytes(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randint(0, 256, shape, generator=gen, dtype=torch.uint8)


EXAMPLE_W = [[1.25, -3.5, 0.75, 0.25], [0.0, 0.0, 1.75, -0.25]]

CASES: list[Case] = [
    Case("example_quantize", "quantize_int4",
         lambda g: Call((torch.tensor(EXAMPLE_W), 2)),
         public=True, note="a tie rounding to even, an ordinary group, a zero group"),
    Case("example_pack", "pack_int4",
         lambda g: Call((torch.tensor([[1, -2, 7, -8]], dtype=torch.int8),)),
         public=True, note="element 2i in the low nibble, negative codes as two's complement"),
    Case("example_unpack", "unpack_int4",
         lambda g: Call((torch.tensor([[225, 135]], dtype=torch.uint8),)),
         public=True, note="the example's bytes back to codes, sign-extended"),
    Case("example_dequantize", "dequantize_int4",
         lambda g: Call((torch.tensor([[225, 135]], dtype=torch.uint8), torch.tensor([[0.5, 0.25]]), 2)),
         public=True, note="codes times the scale of their group"),
    # hidden: quantize
    Case("quantize_random", "quantize_int4", lambda g: _quantize(g),
         note="[8, 64] in groups of 16, no near-halves"),
    Case("quantize_bf16", "quantize_int4",
         lambda g: _quantize(g, 4, 128, 32, dtype=torch.bfloat16),
         note="bfloat16 weights: float32 scales from the exact values"),
    Case("quantize_ties", "quantize_int4", lambda g: _quantize(g, 6, 32, 8, ties=True),
         note="exact halves: round half to even"),
    Case("quantize_zero_groups", "quantize_int4", lambda g: _quantize(g, 4, 32, 8, zero_groups=3),
         note="all-zero groups: scale 0, codes 0"),
    Case("quantize_group_is_row", "quantize_int4", lambda g: _quantize(g, 5, 24, 24),
         note="group_size = K: one scale per row", tags=("groups",)),
    Case("quantize_group_of_one", "quantize_int4", lambda g: _quantize(g, 3, 10, 1),
         note="group_size = 1: every code is +-7", tags=("groups",)),
    Case("quantize_groups_along_rows", "quantize_int4", lambda g: _quantize(g, 16, 16, 4),
         note="N = K: groups run along a row, not down a column", tags=("groups",)),
    Case("quantize_non_contiguous", "quantize_int4",
         lambda g: Call((_grid(g, 12, 8, 4).t().contiguous().t(), 4)),
         note="a column-major matrix: .view on it fails", tags=("non_contiguous",)),
    Case("quantize_bad_group", "quantize_int4",
         lambda g: Call((torch.randn(4, 12, generator=g), 8)),
         note="8 does not divide K = 12: ValueError", tags=("validation",)),
    Case("quantize_group_zero", "quantize_int4",
         lambda g: Call((torch.randn(4, 8, generator=g), 0)),
         note="group_size = 0: ValueError (not a ZeroDivisionError)", tags=("validation",)),
    Case("quantize_not_2d", "quantize_int4",
         lambda g: Call((torch.randn(32, generator=g), 8)),
         note="a 1-D weight: ValueError", tags=("validation",)),
    # hidden: pack / unpack / dequantize
    Case("pack_random", "pack_int4", lambda g: Call((_codes(g, 5, 40),)),
         note="random codes over the whole range [-8, 7]"),
    Case("pack_3d", "pack_int4", lambda g: Call((_codes(g, 2, 3, 8),)),
         note="codes of shape [2, 3, 8]"),
    Case("pack_strided", "pack_int4", lambda g: Call((_codes(g, 4, 24)[:, 1::2],)),
         note="codes every other column of a wider buffer", tags=("non_contiguous",)),
    Case("pack_odd", "pack_int4", lambda g: Call((_codes(g, 3, 7),)),
         note="an odd last dimension: ValueError", tags=("validation",)),
    Case("pack_out_of_range", "pack_int4",
         lambda g: Call((torch.tensor([[3, 8, -1, 0]], dtype=torch.int8),)),
         note="a code of 8: ValueError instead of wrapping to -8"),
    Case("pack_below_range", "pack_int4",
         lambda g: Call((torch.tensor([[2, -9, 5, -8]], dtype=torch.int8),)),
         note="a code of -9: ValueError instead of wrapping to 7 (the range has two ends)",
         tags=("validation",)),
    Case("pack_wrong_dtype", "pack_int4",
         lambda g: Call((torch.tensor([[1, 2]], dtype=torch.int32),)),
         note="int32 codes: TypeError", tags=("validation",)),
    Case("unpack_random", "unpack_int4", lambda g: Call((_bytes(g, 6, 20),)),
         note="random bytes: both nibbles, both signs"),
    Case("unpack_1d", "unpack_int4", lambda g: Call((_bytes(g, 9),)),
         note="a 1-D row of bytes"),
    Case("unpack_wrong_dtype", "unpack_int4",
         lambda g: Call((torch.tensor([[1, 2]], dtype=torch.int8),)),
         note="int8 bytes: TypeError", tags=("validation",)),
    Case("dequantize_random", "dequantize_int4",
         lambda g: Call((_bytes(g, 6, 16), torch.rand(6, 4, generator=g) * 0.1, 8)),
         note="groups of 8 consecutive columns, scales repeated over their own group",
         tags=("groups",)),
    Case("dequantize_bad_scales", "dequantize_int4",
         lambda g: Call((_bytes(g, 4, 8), torch.rand(4, 3, generator=g), 4)),
         note="3 scales per row where K / g = 4: ValueError", tags=("validation",)),
]

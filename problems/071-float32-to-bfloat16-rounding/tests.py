"""Tests of problem 71. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _bits(values: list[int]) -> torch.Tensor:
    """float32 tensor with these 32-bit patterns (given as unsigned integers)."""
    signed = [v - (1 << 32) if v >= (1 << 31) else v for v in values]
    return torch.tensor(signed, dtype=torch.int32).view(torch.float32)


def _random_bits(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randint(0, 1 << 16, shape, generator=gen, dtype=torch.int32)


def _wide_range(gen: torch.Generator, n: int = 400) -> torch.Tensor:
    """Normal values times 2^e for e uniform in [-140, 120]: every binade of float32, no ties."""
    e = torch.randint(-140, 121, (n,), generator=gen).float()
    return torch.randn(n, generator=gen) * torch.exp2(e)


def _random_patterns(gen: torch.Generator, n: int = 600) -> torch.Tensor:
    """Arbitrary 32-bit patterns: NaNs, infinities and subnormals included, at random."""
    return torch.randint(-(1 << 31), 1 << 31, (n,), generator=gen, dtype=torch.int64).to(torch.int32).view(torch.float32)


def _ties(gen: torch.Generator, n: int = 64) -> torch.Tensor:
    """Exact halves: random high halves (finite, both signs, both parities), low half 0x8000."""
    high = torch.randint(0, 0x7F7F, (n,), generator=gen, dtype=torch.int64)
    sign = torch.randint(0, 2, (n,), generator=gen, dtype=torch.int64) << 31
    return _bits(((sign | (high << 16) | 0x8000)).tolist())


def _near_ties(gen: torch.Generator, n: int = 64) -> torch.Tensor:
    high = torch.randint(0, 0x7F7F, (n,), generator=gen, dtype=torch.int64)
    low = torch.where(torch.rand(n, generator=gen) < 0.5, 0x7FFF, 0x8001)
    return _bits(((high << 16) | low).tolist())


NANS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F80FFFF,
        0x7FBFFFFF, 0x7F808000]
EDGES = [0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0xFF7FFFFF, 0xFF7F8000, 0xFF7F7FFF,  # largest finite
         0x7F800000, 0xFF800000, 0x00000000, 0x80000000,                          # inf, +-0
         0x00000001, 0x00008000, 0x00018000, 0x0000FFFF, 0x007FFFFF, 0x807F8000,  # subnormals
         0x3FFFFFFF, 0x3F7FFFFF]                                                   # carries


def _stochastic(gen: torch.Generator, x: torch.Tensor) -> Call:
    return Call((x, "stochastic", _random_bits(gen, *x.shape)))


CASES: list[Case] = [
    Case("example_nearest", "to_bfloat16",
         lambda g: Call((torch.tensor([1.0, 1.00390625, 1.01171875, 3.14159274]),)),
         public=True, exact=True, note="ties to even: 0x3F808000 goes down, 0x3F818000 goes up"),
    Case("example_zero", "to_bfloat16",
         lambda g: Call((torch.tensor([1.01171875, -1.01171875, 3.14159274]), "zero")),
         public=True, exact=True, note="toward zero: the low 16 bits are dropped"),
    Case("example_nan", "to_bfloat16",
         lambda g: Call((torch.tensor([float("nan"), -float("nan"), float("inf")]),)),
         public=True, exact=True, note="every NaN becomes 0x7FC0; infinity stays 0x7F80",
         tags=("nan",)),
    Case("example_stochastic", "to_bfloat16",
         lambda g: Call((torch.tensor([1.01171875, 1.01171875]), "stochastic",
                         torch.tensor([0x7FFF, 0x8000], dtype=torch.int32))),
         public=True, exact=True, note="the random bits decide whether the carry reaches bit 16"),
    # hidden: nearest
    Case("nearest_random", "to_bfloat16", lambda g: Call((_wide_range(g),)), exact=True,
         note="values over every binade of float32, no ties"),
    Case("nearest_patterns", "to_bfloat16", lambda g: Call((_random_patterns(g),)), exact=True,
         note="arbitrary bit patterns: NaNs, infinities and subnormals at random"),
    Case("nearest_ties", "to_bfloat16", lambda g: Call((_ties(g),)), exact=True,
         note="exact halves, even and odd last bits, both signs", tags=("ties",)),
    Case("nearest_near_ties", "to_bfloat16", lambda g: Call((_near_ties(g),)), exact=True,
         note="one unit below and above a half", tags=("ties",)),
    Case("nearest_edges", "to_bfloat16", lambda g: Call((_bits(EDGES),)), exact=True,
         note="largest finite values (to infinity or not), +-0, infinities, subnormals, carries",
         tags=("edges",)),
    Case("nearest_nans", "to_bfloat16", lambda g: Call((_bits(NANS),)), exact=True,
         note="NaNs of both signs with payloads high and low: all 0x7FC0", tags=("nan",)),
    Case("nearest_explicit", "to_bfloat16", lambda g: Call((_wide_range(g, 50), "nearest")),
         exact=True, note="rounding = 'nearest' given positionally"),
    Case("nearest_scalar", "to_bfloat16", lambda g: Call((torch.tensor(2.00390625),)), exact=True,
         note="a 0-d tensor (a tie at 2.0: stays 2.0)", tags=("ties",)),
    Case("nearest_empty", "to_bfloat16", lambda g: Call((torch.zeros(3, 0),)), exact=True,
         note="an empty [3, 0] tensor"),
    Case("nearest_3d_transposed", "to_bfloat16",
         lambda g: Call((_wide_range(g, 60).reshape(3, 4, 5).transpose(0, 2),)), exact=True,
         note="a transposed 3-D view: .view(torch.int32) on it fails", tags=("non_contiguous",)),
    # hidden: zero
    Case("zero_patterns", "to_bfloat16", lambda g: Call((_random_patterns(g), "zero")), exact=True,
         note="truncation of arbitrary patterns, NaNs canonical"),
    Case("zero_edges", "to_bfloat16", lambda g: Call((_bits(EDGES + NANS),), {"rounding": "zero"}),
         exact=True, note="truncation never reaches infinity; NaNs with low payloads stay NaN",
         tags=("edges",)),
    # hidden: stochastic
    Case("stochastic_random", "to_bfloat16", lambda g: _stochastic(g, _wide_range(g)), exact=True,
         note="random values, random bits", tags=("stochastic",)),
    Case("stochastic_patterns", "to_bfloat16", lambda g: _stochastic(g, _random_patterns(g)),
         exact=True, note="arbitrary patterns, random bits"),
    Case("stochastic_extremes", "to_bfloat16",
         lambda g: Call((_bits(EDGES + NANS + EDGES + NANS), "stochastic",
                         torch.tensor([0] * 27 + [0xFFFF] * 27, dtype=torch.int32))),
         exact=True, note="random bits 0 (truncation) and 65535 (up unless exact)",
         tags=("edges",)),
    Case("stochastic_int64_bits", "to_bfloat16",
         lambda g: Call((_wide_range(g, 40).reshape(8, 5), "stochastic",
                         torch.randint(0, 1 << 16, (8, 5), generator=g))),
         exact=True, note="random_bits as int64", tags=("stochastic",)),
    Case("stochastic_strided", "to_bfloat16",
         lambda g: Call((_wide_range(g, 48).reshape(6, 8)[:, 1::2], "stochastic",
                         _random_bits(g, 8, 6).t()[:, :4])),
         exact=True, note="strided values, transposed random bits", tags=("stochastic", "non_contiguous")),
    # hidden: errors
    Case("error_float64", "to_bfloat16", lambda g: Call((torch.randn(4, generator=g).double(),)),
         note="a float64 tensor: TypeError", tags=("validation",)),
    Case("error_bfloat16_input", "to_bfloat16",
         lambda g: Call((torch.randn(4, generator=g).bfloat16(),)),
         note="already bfloat16: TypeError", tags=("validation",)),
    Case("error_unknown_rounding", "to_bfloat16",
         lambda g: Call((torch.randn(4, generator=g), "up")),
         note="rounding = 'up': ValueError", tags=("validation",)),
    Case("error_missing_bits", "to_bfloat16",
         lambda g: Call((torch.randn(4, generator=g), "stochastic")),
         note="stochastic without random_bits: ValueError", tags=("validation",)),
    Case("error_bits_shape", "to_bfloat16",
         lambda g: Call((torch.randn(4, generator=g), "stochastic", _random_bits(g, 5))),
         note="random_bits of another shape: ValueError", tags=("validation",)),
    Case("error_bits_range", "to_bfloat16",
         lambda g: Call((torch.randn(3, generator=g), "stochastic",
                         torch.tensor([5, 65536, 7], dtype=torch.int32))),
         note="a random value of 65536: ValueError", tags=("validation",)),
    Case("error_bits_negative", "to_bfloat16",
         lambda g: Call((torch.randn(3, generator=g), "stochastic",
                         torch.tensor([5, -1, 7], dtype=torch.int32))),
         note="a random value of -1: ValueError", tags=("validation",)),
    Case("error_bits_float", "to_bfloat16",
         lambda g: Call((torch.randn(3, generator=g), "stochastic",
                         _random_bits(g, 3).float())),
         note="random_bits as a float tensor (values in range): ValueError", tags=("validation",)),
    Case("nearest_ignores_bits", "to_bfloat16",
         lambda g: Call((torch.randn(4, generator=g), "nearest", torch.randn(5, generator=g))),
         note="rounding = 'nearest' with unusable random_bits: ignored, no error",
         tags=("validation",)),
]

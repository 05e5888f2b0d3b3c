"""kernels.quant (problems 69-71) against slow loop versions and torch's own cast."""

from __future__ import annotations

import struct

import pytest
import torch

from kernels.quant import (
    dequantize_int4,
    pack_int4,
    quantize_int4,
    to_bfloat16,
    unpack_int4,
    w4a16_gemv,
)


def test_quantize_int4_matches_a_python_loop_with_round_half_even() -> None:
    gen = torch.Generator().manual_seed(8)
    w = torch.randn(3, 12, generator=gen)
    w[1, 4:8] = 0.0
    w[2, :4] = torch.tensor([0.5, -3.5, 1.25, 0.0])  # s = 0.5: 1, -7, 2.5 -> 2 (even), 0
    q, s = quantize_int4(w, 4)
    for r in range(3):
        for j in range(3):
            group = w[r, 4 * j : 4 * j + 4].tolist()
            scale = torch.tensor(max(abs(v) for v in group), dtype=torch.float32) / 7
            assert float(s[r, j]) == float(scale)
            for i, v in enumerate(group):
                want = 0 if scale == 0 else max(-8, min(7, round(float(torch.tensor(v) / scale))))
                assert int(q[r, 4 * j + i]) == want
    assert q[2, :4].tolist() == [1, -7, 2, 0]
    with pytest.raises(ValueError):
        quantize_int4(w, 5)


def test_pack_and_unpack_are_inverse_and_follow_the_nibble_order() -> None:
    codes = torch.arange(-8, 8, dtype=torch.int8).repeat(2, 1)
    packed = pack_int4(codes)
    assert packed[0, 0] == ((-8 & 0xF) | ((-7 & 0xF) << 4))
    assert torch.equal(unpack_int4(packed), codes)
    every_byte = torch.arange(256, dtype=torch.uint8)
    assert torch.equal(pack_int4(unpack_int4(every_byte)), every_byte)
    with pytest.raises(ValueError):
        pack_int4(torch.tensor([8, 0], dtype=torch.int8))
    with pytest.raises(TypeError):
        unpack_int4(torch.tensor([1], dtype=torch.int8))


def test_dequantize_and_gemv_agree_with_an_element_loop() -> None:
    gen = torch.Generator().manual_seed(9)
    packed = torch.randint(0, 256, (3, 4), generator=gen, dtype=torch.uint8)
    scales = torch.rand(3, 2, generator=gen)
    w = dequantize_int4(packed, scales, 4)
    for n in range(3):
        for k in range(8):
            byte = int(packed[n, k // 2])
            nib = (byte >> 4) if k % 2 else (byte & 0xF)
            assert float(w[n, k]) == float(torch.tensor(nib - 16 if nib >= 8 else nib, dtype=torch.float32) * scales[n, k // 4])
    x = torch.randn(2, 8, generator=gen).bfloat16()
    torch.testing.assert_close(w4a16_gemv(x, packed, scales, 4), (x.double() @ w.double().T).bfloat16())
    with pytest.raises(TypeError):
        w4a16_gemv(x.float(), packed, scales, 4)


def _bits(values: list[int]) -> torch.Tensor:
    return torch.tensor([v - (1 << 32) if v >= 1 << 31 else v for v in values], dtype=torch.int32).view(torch.float32)


def test_to_bfloat16_nearest_equals_torch_on_every_non_nan_pattern_and_canonicalises_nan() -> None:
    gen = torch.Generator().manual_seed(10)
    x = torch.randint(-(1 << 31), 1 << 31, (200_000,), generator=gen, dtype=torch.int64).to(torch.int32).view(torch.float32)
    x = x[~torch.isnan(x)]
    assert torch.equal(to_bfloat16(x).view(torch.int16), x.to(torch.bfloat16).view(torch.int16))
    nans = _bits([0x7F800001, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFC00000])
    for rounding, bits in (("nearest", None), ("zero", None), ("stochastic", torch.full((4,), 0xFFFF))):
        assert to_bfloat16(nans, rounding, bits).view(torch.int16).tolist() == [0x7FC0] * 4


def test_to_bfloat16_zero_and_stochastic_follow_the_integer_formula() -> None:
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(500, generator=gen) * 1e3
    r = torch.randint(0, 1 << 16, (500,), generator=gen)
    for value, bits in zip(x.tolist(), r.tolist(), strict=True):
        u = struct.unpack("<I", struct.pack("<f", value))[0]
        assert struct.unpack("<I", struct.pack("<f", value))[0] >> 16 == int(
            to_bfloat16(torch.tensor([value]), "zero").view(torch.int16)[0]) & 0xFFFF
        got = int(to_bfloat16(torch.tensor([value]), "stochastic", torch.tensor([bits])).view(torch.int16)[0])
        assert got & 0xFFFF == ((u + bits) >> 16) & 0xFFFF
    assert to_bfloat16(_bits([0x7F7FFFFF])).view(torch.int16).tolist() == [0x7F80]  # carry to inf
    with pytest.raises(ValueError):
        to_bfloat16(x, "stochastic", r + 0x10000)

"""Tests of problem 70. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

PACKED = [[225, 135], [127, 16]]
SCALES = [[0.5, 0.25], [1.0, 0.5]]


def _layer(gen: torch.Generator, n: int, k: int, group: int, scale: float = 0.01) -> tuple[torch.Tensor, torch.Tensor]:
    packed = torch.randint(0, 256, (n, k // 2), generator=gen, dtype=torch.uint8)
    scales = (0.5 + torch.rand(n, k // group, generator=gen)) * scale
    return packed, scales


def _gemv(gen: torch.Generator, n: int = 48, k: int = 256, group: int = 32, *,
          batch: int | None = None, dtype: torch.dtype = torch.bfloat16) -> Call:
    packed, scales = _layer(gen, n, k, group)
    shape = (k,) if batch is None else (batch, k)
    return Call((torch.randn(shape, generator=gen).to(dtype), packed, scales, group))


def _tiny_scales(gen: torch.Generator) -> Call:
    """float16 activations up to 6e4 against scales of 6e-8 to 1.2e-7: one to two steps of
    float16's subnormals (2^-24), so a scale or a weight cast to float16 loses up to a third."""
    n, k, group = 64, 512, 64
    packed = torch.randint(0, 256, (n, k // 2), generator=gen, dtype=torch.uint8)
    scales = (1.0 + torch.rand(n, k // group, generator=gen)) * 6e-8
    x = ((torch.rand(k, generator=gen) * 2 - 1) * 6e4).half()
    return Call((x, packed, scales, group))


def _views(gen: torch.Generator) -> Call:
    n, k, group = 24, 64, 16
    packed = torch.randint(0, 256, (k // 2, n), generator=gen, dtype=torch.uint8).t()
    scales = ((0.5 + torch.rand(k // group, n, generator=gen)) * 0.02).t()
    x = torch.randn(3, 2 * k, generator=gen).bfloat16()[:, ::2]
    return Call((x, packed, scales, group))


CASES: list[Case] = [
    Case("example_gemv", "w4a16_gemv",
         lambda g: Call((torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.bfloat16),
                         torch.tensor(PACKED, dtype=torch.uint8), torch.tensor(SCALES), 2)),
         public=True, note="one bfloat16 token through a 2 x 4 INT4 matrix"),
    Case("example_batched", "w4a16_gemv",
         lambda g: Call((torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]], dtype=torch.float16),
                         torch.tensor(PACKED, dtype=torch.uint8), torch.tensor(SCALES), 2)),
         public=True, note="two float16 tokens picking the first and the last column of W"),
    Case("bf16_token", "w4a16_gemv", lambda g: _gemv(g),
         note="N = 48, K = 256, groups of 32, one bfloat16 token"),
    Case("fp16_token", "w4a16_gemv", lambda g: _gemv(g, dtype=torch.float16),
         note="a float16 token"),
    Case("batched", "w4a16_gemv", lambda g: _gemv(g, 40, 128, 32, batch=3),
         note="three tokens: [3, K] in, [3, N] out"),
    Case("no_tokens", "w4a16_gemv", lambda g: _gemv(g, 16, 64, 16, batch=0),
         note="B = 0: an empty [0, N] result"),
    Case("groups_of_128", "w4a16_gemv", lambda g: _gemv(g, 32, 512, 128),
         note="groups of 128, four per row", tags=("groups",)),
    Case("group_is_row", "w4a16_gemv", lambda g: _gemv(g, 20, 96, 96, dtype=torch.float16),
         note="one scale per row", tags=("groups",)),
    Case("tiny_scales_fp16", "w4a16_gemv", _tiny_scales,
         note="scales below float16's normal range: they must stay float32"),
    Case("non_contiguous", "w4a16_gemv", _views,
         note="strided activations, bytes and scales stored transposed"),
    Case("float32_activations", "w4a16_gemv",
         lambda g: Call((torch.randn(8, generator=g), *_layer(g, 4, 8, 4), 4)),
         note="float32 x: TypeError", tags=("validation",)),
    Case("k_mismatch", "w4a16_gemv",
         lambda g: Call((torch.randn(6, generator=g).bfloat16(), *_layer(g, 4, 8, 4), 4)),
         note="x has 6 features, the weights 8: ValueError", tags=("validation",)),
    Case("scales_mismatch", "w4a16_gemv",
         lambda g: Call((torch.randn(8, generator=g).bfloat16(), _layer(g, 4, 8, 4)[0],
                         torch.rand(4, 3, generator=g), 4)),
         note="3 scales per row for K / g = 2: ValueError", tags=("validation",)),
    Case("x_3d", "w4a16_gemv",
         lambda g: Call((torch.randn(2, 3, 8, generator=g).bfloat16(), *_layer(g, 4, 8, 4), 4)),
         note="x [2, 3, K] would broadcast through a matmul: ValueError", tags=("validation",)),
    Case("group_not_dividing", "w4a16_gemv",
         lambda g: Call((torch.randn(8, generator=g).bfloat16(), _layer(g, 4, 8, 4)[0],
                         torch.rand(4, 2, generator=g), 3)),
         note="group_size 3 does not divide K = 8 (scales [N, K // 3]): ValueError",
         tags=("validation",)),
]

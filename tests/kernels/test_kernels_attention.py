"""kernels.attention (problems 57-64) against slow loop versions and autograd."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.attention import (
    apply_rope,
    attention,
    attention_backward,
    causal_attention,
    decode_step,
    flash_attention,
    gqa_attention,
    sliding_window_attention,
)


def slow_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   allowed: torch.Tensor) -> torch.Tensor:
    """One query at a time, in float64; ``allowed[b, i, j]``; a row with no key gives zeros."""
    b, h, t, d = q.shape
    out = torch.zeros(b, h, t, d, dtype=torch.float64)
    for bi in range(b):
        for hi in range(h):
            for i in range(t):
                keys = [j for j in range(k.shape[2]) if allowed[bi, i, j]]
                if not keys:
                    continue
                s = torch.stack([q[bi, hi, i].double() @ k[bi, hi, j].double() for j in keys]) / math.sqrt(d)
                w = torch.softmax(s, dim=0)
                out[bi, hi, i] = sum(w[n] * v[bi, hi, j].double() for n, j in enumerate(keys))
    return out


def _close(got: torch.Tensor, want: torch.Tensor) -> None:
    torch.testing.assert_close(got.double(), want.double(), atol=1e-5, rtol=1e-4)


def _qkv(gen: torch.Generator, b: int = 2, h: int = 3, t: int = 7, d: int = 4) -> list[torch.Tensor]:
    return [torch.randn(b, h, t, d, generator=gen) for _ in range(3)]


def _causal(b: int, t: int) -> torch.Tensor:
    return torch.ones(t, t, dtype=torch.bool).tril().expand(b, t, t)


def test_causal_attention_with_padding_gives_zeros_for_rows_that_see_nothing() -> None:
    gen = torch.Generator().manual_seed(1)
    q, k, v = _qkv(gen)
    mask = torch.tensor([[False, False, True, True, True, True, True],
                         [True, True, True, False, True, True, False]])
    allowed = _causal(2, 7) & mask[:, None, :]
    out = causal_attention(q, k, v, mask)
    _close(out, slow_attention(q, k, v, allowed))
    assert out[0, :, :2].abs().max() == 0
    q.requires_grad_(True)
    causal_attention(q, k, v, torch.zeros(2, 7, dtype=torch.bool)).sum().backward()
    assert q.grad is not None and torch.isfinite(q.grad).all()


def test_causal_attention_without_mask_is_plain_causal_attention() -> None:
    q, k, v = _qkv(torch.Generator().manual_seed(2))
    torch.testing.assert_close(causal_attention(q, k, v), attention(q, k, v, causal=True))


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_matches_loops_and_logsumexp(causal: bool) -> None:
    gen = torch.Generator().manual_seed(3)
    q, k, v = _qkv(gen, t=37, d=8)
    if not causal:
        k, v = k[:, :, :29], v[:, :, :29]
    out, lse = flash_attention(q, k, v, causal, block_q=8, block_k=5)
    allowed = _causal(2, 37) if causal else torch.ones(2, 37, 29, dtype=torch.bool)
    _close(out, slow_attention(q, k, v, allowed))
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(8)
    if causal:
        scores = scores.masked_fill(~torch.ones(37, 37, dtype=torch.bool).tril(), float("-inf"))
    torch.testing.assert_close(lse, torch.logsumexp(scores, dim=-1))


def test_gqa_attention_shares_each_kv_head_with_consecutive_query_heads() -> None:
    gen = torch.Generator().manual_seed(4)
    q = torch.randn(2, 6, 5, 4, generator=gen)
    k, v = torch.randn(2, 2, 5, 4, generator=gen), torch.randn(2, 2, 5, 4, generator=gen)
    expected = attention(q, k.repeat_interleave(3, dim=1), v.repeat_interleave(3, dim=1), causal=True)
    torch.testing.assert_close(gqa_attention(q, k, v), expected)
    with pytest.raises(ValueError):
        gqa_attention(q, k[:, :1].expand(2, 4, 5, 4), v[:, :1].expand(2, 4, 5, 4))


def test_decode_step_appends_and_attends_ragged_rows_ignoring_stale_slots() -> None:
    gen = torch.Generator().manual_seed(5)
    b, h, slots, d = 3, 2, 6, 4
    q, k_new, v_new = (torch.randn(b, h, d, generator=gen) for _ in range(3))
    k_cache = torch.full((b, h, slots, d), float("nan"))
    v_cache = torch.full((b, h, slots, d), float("nan"))
    lengths = torch.tensor([0, 3, 5])
    k_cache[1, :, :3] = torch.randn(h, 3, d, generator=gen)
    v_cache[1, :, :3] = torch.randn(h, 3, d, generator=gen)
    k_cache[2, :, :5] = torch.randn(h, 5, d, generator=gen)
    v_cache[2, :, :5] = torch.randn(h, 5, d, generator=gen)
    before = k_cache.clone()
    out, k2, v2, len2 = decode_step(q, k_new, v_new, k_cache, v_cache, lengths)
    assert torch.equal(len2, lengths + 1) and torch.equal(k_cache.isnan(), before.isnan())
    for row, n in enumerate(lengths.tolist()):
        torch.testing.assert_close(k2[row, :, n], k_new[row])
        expected = attention(q[row, :, None], k2[row, :, : n + 1], v2[row, :, : n + 1])
        torch.testing.assert_close(out[row], expected[:, 0])
    with pytest.raises(IndexError):
        decode_step(q, k_new, v_new, k_cache, v_cache, torch.tensor([0, 3, 6]))


def slow_rope(x: torch.Tensor, positions: list[list[int]], interleaved: bool) -> torch.Tensor:
    b, h, t, d = x.shape
    out = torch.empty(b, h, t, d, dtype=torch.float64)
    for bi in range(b):
        for ti in range(t):
            for i in range(d // 2):
                angle = positions[bi][ti] * 10000.0 ** (-2 * i / d)
                a, c = (2 * i, 2 * i + 1) if interleaved else (i, i + d // 2)
                x1, x2 = x[bi, :, ti, a].double(), x[bi, :, ti, c].double()
                out[bi, :, ti, a] = x1 * math.cos(angle) - x2 * math.sin(angle)
                out[bi, :, ti, c] = x1 * math.sin(angle) + x2 * math.cos(angle)
    return out


@pytest.mark.parametrize("interleaved", [False, True])
def test_apply_rope_both_conventions_and_offsets(interleaved: bool) -> None:
    x = torch.randn(2, 3, 5, 8, generator=torch.Generator().manual_seed(6))
    got = apply_rope(x, 7, interleaved=interleaved)
    _close(got, slow_rope(x, [[7 + t for t in range(5)]] * 2, interleaved))
    rows = apply_rope(x, torch.tensor([0, 100]), interleaved=interleaved)
    expected = slow_rope(x, [list(range(5)), [100 + t for t in range(5)]], interleaved)
    _close(rows, expected)
    half = apply_rope(x.bfloat16(), 3, interleaved=interleaved)
    assert half.dtype == torch.bfloat16
    with pytest.raises(ValueError):
        apply_rope(x[..., :7])


@pytest.mark.parametrize("window", [1, 3, 40])
def test_sliding_window_attention_matches_loops(window: int) -> None:
    q, k, v = _qkv(torch.Generator().manual_seed(7), t=23)
    i, j = torch.arange(23)[:, None], torch.arange(23)[None, :]
    allowed = ((j <= i) & (j > i - window)).expand(2, 23, 23)
    got = sliding_window_attention(q, k, v, window, block=4)
    _close(got, slow_attention(q, k, v, allowed))
    with pytest.raises(ValueError):
        sliding_window_attention(q, k, v, 0)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_backward_matches_autograd(causal: bool) -> None:
    gen = torch.Generator().manual_seed(8)
    q, k, v = (x.double().requires_grad_(True) for x in _qkv(gen, t=9, d=6))
    grad = torch.randn(2, 3, 9, 6, generator=gen, dtype=torch.float64)
    attention(q, k, v, causal).backward(grad)
    dq, dk, dv = attention_backward(q.detach(), k.detach(), v.detach(), grad, causal)
    for got, want in ((dq, q.grad), (dk, k.grad), (dv, v.grad)):
        assert want is not None
        _close(got, want)

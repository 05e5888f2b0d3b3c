"""kernels.paged_attention (problem 78) against a token-by-token float64 loop."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.paged_attention import paged_decode_attention


def slow_paged(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
               tables: torch.Tensor, lens: torch.Tensor, scale: float) -> torch.Tensor:
    """One row, head and token at a time, in float64, straight from the block tables."""
    b, h, d = q.shape
    block_size, hkv = k_cache.shape[1], k_cache.shape[2]
    out = torch.zeros(b, h, d, dtype=torch.float64)
    for row in range(b):
        n = int(lens[row])
        for head in range(h):
            kv = head // (h // hkv)
            where = [(int(tables[row, t // block_size]), t % block_size) for t in range(n)]
            if not where:
                continue
            s = torch.stack([q[row, head].double() @ k_cache[blk, slot, kv].double() for blk, slot in where])
            w = torch.softmax(s * scale, dim=0)
            out[row, head] = sum(w[i] * v_cache[blk, slot, kv].double() for i, (blk, slot) in enumerate(where))
    return out


def _pool(seed: int, lens: list[int], *, h: int, hkv: int, d: int = 8, block_size: int = 4,
          max_blocks: int = 4) -> tuple[torch.Tensor, ...]:
    """Scattered blocks; unused entries -1; every slot outside a context NaN."""
    gen = torch.Generator().manual_seed(seed)
    needed = [-(-n // block_size) for n in lens]
    num_blocks = sum(needed) + 2
    pool = torch.randperm(num_blocks, generator=gen).tolist()
    tables = torch.full((len(lens), max_blocks), -1)
    for row, count in enumerate(needed):
        for j in range(count):
            tables[row, j] = pool.pop()
    k = torch.randn(num_blocks, block_size, hkv, d, generator=gen)
    v = torch.randn(num_blocks, block_size, hkv, d, generator=gen)
    used = torch.zeros(num_blocks, block_size, dtype=torch.bool)
    for row, n in enumerate(lens):
        for t in range(n):
            used[tables[row, t // block_size], t % block_size] = True
    nan = ~used[:, :, None, None]
    q = torch.randn(len(lens), h, d, generator=gen)
    return q, k.masked_fill(nan, math.nan), v.masked_fill(nan, math.nan), tables, torch.tensor(lens)


@pytest.mark.parametrize(("h", "hkv"), [(4, 4), (8, 2), (3, 1)])
def test_it_matches_a_token_by_token_loop(h: int, hkv: int) -> None:
    q, k, v, tables, lens = _pool(h, [5, 16, 1, 0, 9], h=h, hkv=hkv)
    got = paged_decode_attention(q, k, v, tables, lens, 0.4)
    assert not got.isnan().any()
    torch.testing.assert_close(got.double(), slow_paged(q, k, v, tables, lens, 0.4), atol=1e-5, rtol=1e-4)
    assert torch.equal(got[3], torch.zeros(h, 8))  # context 0: zeros


def test_it_computes_low_precision_in_float32_and_takes_int32_indices() -> None:
    q, k, v, tables, lens = _pool(7, [6, 11], h=4, hkv=2)
    got = paged_decode_attention(q.half(), k.half(), v.half(), tables.int(), lens.int(), 0.35)
    assert got.dtype == torch.float16
    want = slow_paged(q.half(), k.half(), v.half(), tables, lens, 0.35)
    torch.testing.assert_close(got.double(), want, atol=1e-3, rtol=1e-3)


def test_it_raises_for_bad_heads_lengths_and_needed_entries() -> None:
    q, k, v, tables, lens = _pool(3, [5, 7], h=4, hkv=2)
    with pytest.raises(ValueError):
        paged_decode_attention(q[:, :3], k, v, tables, lens, 1.0)
    with pytest.raises(IndexError):
        paged_decode_attention(q, k, v, tables, torch.tensor([5, 17]), 1.0)
    with pytest.raises(IndexError):
        paged_decode_attention(q, k, v, tables, torch.tensor([-1, 7]), 1.0)
    bad = tables.clone()
    bad[1, 1] = -1  # row 1 (7 tokens) uses entries 0 and 1
    with pytest.raises(IndexError):
        paged_decode_attention(q, k, v, bad, lens, 1.0)
    junk = tables.clone()
    junk[0, 2:] = 10_000  # unused entries: never followed
    torch.testing.assert_close(paged_decode_attention(q, k, v, junk, lens, 1.0),
                               paged_decode_attention(q, k, v, tables, lens, 1.0))

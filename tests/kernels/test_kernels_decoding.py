"""kernels.paged_attention (problem 78) against a token-by-token float64 loop, and
kernels.speculative (problem 77) against the papers' formulas written per token."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.paged_attention import paged_decode_attention
from kernels.speculative import acceptance_probs, residual_probs, speculative_step


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


# --- 77: speculative decoding -------------------------------------------------------------


def test_acceptance_and_residual_match_the_formulas_with_their_edge_conventions() -> None:
    gen = torch.Generator().manual_seed(5)
    q = torch.softmax(torch.randn(3, 2, 6, generator=gen), dim=-1)
    p = torch.softmax(torch.randn(3, 3, 6, generator=gen), dim=-1)
    drafts = torch.tensor([[0, 1], [2, 3], [4, 5]])
    q[0, 0, 0], p[0, 0, 0] = 0.0, 0.2  # q = 0 < p: 1
    q[1, 1, 3], p[1, 1, 3] = 0.0, 0.0  # p = q = 0: 0, not NaN
    got = acceptance_probs(q, drafts, p)
    for b in range(3):
        for i in range(2):
            x = int(drafts[b, i])
            qx, px = float(q[b, i, x]), float(p[b, i, x])
            want = min(1.0, px / qx) if qx > 0 else float(px > 0)
            assert math.isclose(float(got[b, i]), want, rel_tol=1e-6, abs_tol=1e-7)
    assert got[0, 0] == 1.0 and got[1, 1] == 0.0
    res = residual_probs(q, p[:, :2])
    excess = (p[:, :2].double() - q.double()).clamp(min=0)
    torch.testing.assert_close(res.double(), excess / excess.sum(-1, keepdim=True), atol=1e-6, rtol=1e-5)
    assert torch.equal(residual_probs(q, q), q)  # zero residual: p itself
    with pytest.raises(ValueError):
        acceptance_probs(q, drafts, p[:, :2])
    with pytest.raises(IndexError):
        acceptance_probs(q, torch.tensor([[0, 1], [2, 6], [4, 5]]), p)


def test_the_step_is_exact_in_distribution_and_deterministic_in_its_seed() -> None:
    q = torch.tensor([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    p = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]])
    n = 40_000
    gen = torch.Generator().manual_seed(11)
    drafts = torch.stack([torch.multinomial(q[i], n, replacement=True, generator=gen) for i in range(2)], 1)
    num, tokens = speculative_step(q[None].expand(n, -1, -1), drafts, p[None].expand(n, -1, -1), 3)
    positions = torch.arange(3)[None, :]
    after = positions > num[:, None]
    assert bool((tokens[after] == -1).all())
    accepted = positions[:, :2] < num[:, None]
    assert torch.equal(tokens[:, :2][accepted], drafts[accepted])
    first = torch.bincount(tokens[:, 0], minlength=4).double()
    stat = float(((first - n * p[0]) ** 2 / (n * p[0])).sum())
    assert stat < 45  # chi-square, 3 degrees of freedom: p-value about 1e-9
    beta = float(torch.minimum(p[0], q[0]).sum())
    assert abs(float((num >= 1).double().mean()) - beta) < 0.01  # P(accept the first) = sum min(p, q)
    again = speculative_step(q[None].expand(n, -1, -1), drafts, p[None].expand(n, -1, -1), 3)
    assert torch.equal(again[0], num) and torch.equal(again[1], tokens)


def test_the_step_accepts_everything_when_p_equals_q_and_handles_k_zero() -> None:
    q = torch.tensor([[[0.5, 0.5, 0.0]]]).expand(8, -1, -1)
    p = torch.cat([q, torch.tensor([[[0.0, 0.0, 1.0]]]).expand(8, -1, -1)], dim=1)
    num, tokens = speculative_step(q, torch.ones(8, 1, dtype=torch.int64), p, 0, pad_id=7)
    assert torch.equal(num, torch.ones(8, dtype=torch.int64))
    assert torch.equal(tokens, torch.tensor([[1, 2]] * 8))  # the bonus from p[k]
    num, tokens = speculative_step(torch.zeros(2, 0, 3), torch.zeros(2, 0, dtype=torch.int64),
                                   torch.tensor([[[0.0, 1.0, 0.0]]] * 2), 4)
    assert torch.equal(num, torch.zeros(2, dtype=torch.int64))
    assert torch.equal(tokens, torch.tensor([[1], [1]]))

"""Decode attention over a paged KV cache (vLLM-style block tables): the reference of problem 78
and its speed baseline.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. The cache is a pool of ``num_blocks`` blocks of
``block_size`` token slots, ``[num_blocks, block_size, H_kv, D]``; row ``b`` of a batch owns the
blocks ``block_tables[b, 0], block_tables[b, 1], ...`` in order, and its token ``t`` lives in
slot ``t % block_size`` of block ``block_tables[b, t // block_size]``.
"""

from __future__ import annotations

import torch

NEG_INF = float("-inf")


def _check(
    q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
    block_tables: torch.Tensor, context_lens: torch.Tensor,
) -> None:
    if q.dim() != 3 or k_cache.dim() != 4 or v_cache.shape != k_cache.shape:
        raise ValueError("need q [B, H, D] and k_cache, v_cache [num_blocks, block_size, H_kv, D]")
    b, h, d = q.shape
    hkv = k_cache.shape[2]
    if k_cache.shape[3] != d or hkv < 1 or h % hkv:
        raise ValueError(f"{hkv} key/value heads of size {k_cache.shape[3]} do not fit {h} query heads of size {d}")
    if block_tables.dim() != 2 or block_tables.shape[0] != b or tuple(context_lens.shape) != (b,):
        raise ValueError("need block_tables [B, max_blocks] and context_lens [B]")


def paged_decode_attention(
    q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
    block_tables: torch.Tensor, context_lens: torch.Tensor, scale: float,
) -> torch.Tensor:
    """``out[b, h] = sum_t softmax_t(scale * q[b, h] . K_b[t]) V_b[t]`` over the row's tokens
    ``t < context_lens[b]``, gathered through its block table; query head ``h`` reads key/value
    head ``h // (H / H_kv)``. Computed in float32, returned in ``q``'s dtype; a row of context 0
    gives zeros. Slots past a row's context and table entries it does not need are never read
    into the result (they may hold NaN, -1, anything). ValueError for shapes that do not fit,
    IndexError for a context outside ``[0, max_blocks * block_size]`` or a needed table entry
    outside ``[0, num_blocks)``."""
    _check(q, k_cache, v_cache, block_tables, context_lens)
    b, h, d = q.shape
    num_blocks, block_size, hkv = k_cache.shape[:3]
    lens = context_lens.long()
    if bool(((lens < 0) | (lens > block_tables.shape[1] * block_size)).any()):
        raise IndexError(f"context lengths {lens.tolist()} outside [0, {block_tables.shape[1] * block_size}]")
    # The blocks each row uses, packed (row-major): about half a padded [B, max_len] gather.
    counts = -(-lens // block_size)
    columns = int(counts.max()) if b else 0
    used = torch.arange(columns, device=q.device)[None, :] < counts[:, None]  # [B, C]
    entries = block_tables[:, :columns].long()
    if bool((used & ((entries < 0) | (entries >= num_blocks))).any()):
        raise IndexError(f"a block table entry a row uses lies outside [0, {num_blocks})")
    rows, cols = used.nonzero(as_tuple=True)  # [N]
    blocks = entries[rows, cols]
    pos = cols[:, None] * block_size + torch.arange(block_size, device=q.device)  # [N, bs]
    valid = pos < lens[rows][:, None]
    invalid = ~valid[:, :, None, None]
    # Fresh copies [N, bs, H_kv, D]: zero the slots past each context (NaN there stays out).
    keys = k_cache.index_select(0, blocks).float().masked_fill_(invalid, 0.0)
    values = v_cache.index_select(0, blocks).float().masked_fill_(invalid, 0.0)
    g = h // hkv
    qg = q.float().reshape(b, hkv, g, d)
    scores = torch.einsum("nkgd,nskd->nkgs", qg[rows], keys) * scale  # [N, H_kv, g, bs]
    scores = scores.masked_fill_(~valid[:, None, None, :], NEG_INF)
    # The softmax of each row over all its blocks, on a small padded [B, C, H_kv, g, bs] copy of
    # the scores (a row of context 0 has no block: its NaN softmax is never read back).
    padded = torch.full((b, columns, hkv, g, block_size), NEG_INF, device=q.device)
    padded[rows, cols] = scores
    probs = torch.softmax(padded.permute(0, 2, 3, 1, 4).reshape(b, hkv, g, -1), dim=-1)
    probs = probs.reshape(b, hkv, g, columns, block_size).permute(0, 3, 1, 2, 4)[rows, cols]
    partial = torch.einsum("nkgs,nskd->nkgd", probs, values)
    out = torch.zeros(b, hkv, g, d, device=q.device).index_add_(0, rows, partial)
    return out.reshape(b, h, d).to(q.dtype)

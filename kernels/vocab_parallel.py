"""Vocabulary-parallel embedding and LM head, simulated over k shards (problem 51).

Shard ``i`` holds the contiguous rows ``[start_i, start_i + V_i)`` of the table, with
``start_i`` the sum of the previous shards' row counts. Each function computes per shard what
one device would, and combines only what tensor parallelism would communicate: a sum of
``[..., d]`` partial embeddings, and per-row scalars (maxima, sums) for the head.
"""

from __future__ import annotations

import torch


def _starts(shards: list[torch.Tensor]) -> list[int]:
    starts, total = [], 0
    for shard in shards:
        starts.append(total)
        total += shard.shape[0]
    return starts


def vp_embed(ids: torch.Tensor, shards: list[torch.Tensor]) -> torch.Tensor:
    """``ids.shape + (d,)``: the sum over shards of each shard's masked local lookup.

    An id outside ``[0, sum V_i)`` raises IndexError (no shard owns it).
    """
    vocab = sum(s.shape[0] for s in shards)
    if bool(((ids < 0) | (ids >= vocab)).any()):
        raise IndexError(f"token id outside [0, {vocab})")
    out = None
    for start, shard in zip(_starts(shards), shards, strict=True):
        local = ids - start
        outside = (local < 0) | (local >= shard.shape[0])
        part = shard[local.masked_fill(outside, 0)].masked_fill(outside.unsqueeze(-1), 0)
        out = part if out is None else out + part
    assert out is not None, "at least one shard"
    return out


def vp_argmax_logprob(
    hidden: torch.Tensor, shards: list[torch.Tensor], targets: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy token and ``log p(target)`` per row of ``hidden`` ``[N, d]``, head tied to shards.

    Returns ``(argmax int64 [N], logprob float32 [N])``. Per shard: local logits, their max,
    argmax (+ the shard's start) and ``sum exp(logit - local max)``, the target's logit if the
    shard owns it. Combined from those ``[N]`` vectors only: global max, first shard reaching
    it (ties go to the smallest id), ``logsumexp = M + log(sum_i s_i exp(m_i - M))``. A target
    outside ``[0, sum V_i)`` raises IndexError (no shard owns it).
    """
    vocab = sum(s.shape[0] for s in shards)
    if bool(((targets < 0) | (targets >= vocab)).any()):
        raise IndexError(f"target outside [0, {vocab})")
    maxima, argmaxes, sums = [], [], []
    target_logit = torch.zeros(hidden.shape[0], dtype=torch.float32, device=hidden.device)
    for start, shard in zip(_starts(shards), shards, strict=True):
        logits = (hidden @ shard.T).float()  # [N, V_i]: lives on one device only
        local_max, local_arg = logits.max(dim=1)
        maxima.append(local_max)
        argmaxes.append(local_arg + start)
        sums.append(torch.exp(logits - local_max[:, None]).sum(dim=1))
        local = targets - start
        owned = (local >= 0) & (local < shard.shape[0])
        picked = logits.gather(1, local.clamp(0, shard.shape[0] - 1)[:, None])[:, 0]
        target_logit = target_logit + torch.where(owned, picked, 0.0)
    m = torch.stack(maxima)  # [k, N]: one scalar per row per shard
    best = m.max(dim=0).values
    winner = (m == best).int().argmax(dim=0)  # first shard with the maximum
    argmax = torch.stack(argmaxes).gather(0, winner[None])[0]
    log_total = torch.log((torch.stack(sums) * torch.exp(m - best)).sum(dim=0))
    # logsumexp = best + log_total; subtracting ``best`` first keeps float32 precision when
    # the logits are large.
    return argmax, (target_logit - best) - log_total

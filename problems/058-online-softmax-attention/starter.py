import math

import torch


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                    causal: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """(out [B, H, T, d], lse [B, H, T]) of softmax(q k^T / sqrt(d)) v."""
    # TODO: correct, but it builds the whole [B, H, T, S] score matrix (and softmax makes
    # another): 1 GiB each at T = 16384, twice the memory limit. Walk over blocks of keys with
    # a running maximum and sum instead.
    t, s, d = q.shape[-2], k.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    if causal:
        scores = scores.masked_fill(~torch.ones(t, s, dtype=torch.bool).tril(), float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    return torch.softmax(scores, dim=-1) @ v, lse

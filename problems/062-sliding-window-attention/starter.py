import math

import torch


def sliding_window_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                             window: int) -> torch.Tensor:
    """Causal attention where each query sees only the last `window` keys (itself included)."""
    t, d = q.shape[-2], q.shape[-1]
    i = torch.arange(t)[:, None]
    j = torch.arange(t)[None, :]
    # TODO: check this mask against the statement: how many keys does query i see?
    allowed = (j <= i) & (j >= i - window)
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v

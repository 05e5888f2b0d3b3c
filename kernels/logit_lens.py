"""Logit lens: each layer's hidden state read through the final norm and tied head (problem 52)."""

from __future__ import annotations

import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last dimension, computed in float32."""
    x32 = x.float()
    return x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()


def logit_lens(
    hidden_states: torch.Tensor, norm_weight: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Top-1 token (int64 ``[L, N]``) and its probability (float32 ``[L, N]``) per layer.

    ``hidden_states``: ``[L, N, d]`` (layer ``l``'s residual stream at ``N`` positions);
    ``norm_weight``: the final RMSNorm's ``[d]``; ``weight``: the tied ``[V, d]`` table. The
    top-1 probability is ``softmax(logits)[top1] = 1 / sum(exp(logits - max))``.
    """
    logits = rms_norm(hidden_states, norm_weight, eps) @ weight.float().T  # [L, N, V]
    top, ids = logits.max(dim=-1)
    prob = 1.0 / torch.exp(logits - top[..., None]).sum(dim=-1)
    return ids, prob

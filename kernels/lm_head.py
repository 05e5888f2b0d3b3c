"""LM head on packed (varlen) batches: logits only where sampling needs them (problem 50)."""

from __future__ import annotations

import torch


def last_token_indices(cu_seqlens: torch.Tensor) -> torch.Tensor:
    """Packed index of each sequence's last token: ``cu_seqlens[1:] - 1`` (int64 ``[B]``).

    ``cu_seqlens`` is int64 ``[B + 1]``, ``cu_seqlens[0] == 0``, strictly increasing (every
    sequence has at least one token). Raises ValueError otherwise.
    """
    if cu_seqlens.ndim != 1 or cu_seqlens.numel() < 1 or int(cu_seqlens[0]) != 0:
        raise ValueError("cu_seqlens must be 1-D and start at 0")
    if bool((cu_seqlens[1:] <= cu_seqlens[:-1]).any()):
        raise ValueError("cu_seqlens must be strictly increasing (no empty sequence)")
    return cu_seqlens[1:].to(torch.int64) - 1


def sample_logits(
    hidden: torch.Tensor, cu_seqlens: torch.Tensor, weight: torch.Tensor, needs_logits: torch.Tensor
) -> torch.Tensor:
    """``[K, V]`` logits at the last token of each sequence whose ``needs_logits`` is True.

    ``hidden``: packed ``[N, d]`` with ``N == cu_seqlens[-1]``; ``weight``: tied ``[V, d]``;
    ``needs_logits``: bool ``[B]`` (False for a prefill chunk that is not the prompt's last;
    another length raises ValueError). Rows come in sequence order. One ``[K, d] @ [d, V]``
    product.
    """
    last = last_token_indices(cu_seqlens)
    if hidden.shape[0] != int(cu_seqlens[-1]):
        raise ValueError("hidden has a different number of tokens than cu_seqlens says")
    if tuple(needs_logits.shape) != tuple(last.shape):
        raise ValueError("needs_logits must hold one flag per sequence")
    return hidden[last[needs_logits]] @ weight.T

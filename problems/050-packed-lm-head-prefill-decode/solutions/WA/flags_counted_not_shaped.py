# Mistake: checks that needs_logits holds one flag per sequence by counting its elements, not by
# its shape, then flattens it: a [B, 1] column of flags is accepted instead of raising ValueError.
import torch


def last_token_indices(cu_seqlens):
    if cu_seqlens.dim() != 1 or len(cu_seqlens) == 0 or cu_seqlens[0] != 0:
        raise ValueError("cu_seqlens must start at 0")
    if (cu_seqlens.diff() <= 0).any():
        raise ValueError("every sequence needs a token")
    return cu_seqlens[1:] - 1


def sample_logits(hidden, cu_seqlens, weight, needs_logits):
    last = last_token_indices(cu_seqlens)
    if hidden.shape[0] != cu_seqlens[-1]:
        raise ValueError("token count")
    if needs_logits.numel() != last.numel():
        raise ValueError("one flag per sequence")
    rows = last[needs_logits.reshape(-1)]
    return hidden[rows] @ weight.t()

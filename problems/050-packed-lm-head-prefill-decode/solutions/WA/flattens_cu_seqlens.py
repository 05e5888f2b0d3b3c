# Mistake: "accepts any shape" by flattening cu_seqlens, so a [B + 1, 1] column (a caller's
# bug) is silently used instead of raising ValueError as the statement demands.
import torch


def last_token_indices(cu_seqlens):
    cu = cu_seqlens.reshape(-1)
    if len(cu) == 0 or cu[0] != 0:
        raise ValueError("cu_seqlens must start at 0")
    if (cu.diff() <= 0).any():
        raise ValueError("every sequence needs a token")
    return cu[1:] - 1


def sample_logits(hidden, cu_seqlens, weight, needs_logits):
    last = last_token_indices(cu_seqlens)
    if hidden.shape[0] != cu_seqlens.reshape(-1)[-1]:
        raise ValueError("token count")
    if needs_logits.shape != last.shape:
        raise ValueError("one flag per sequence")
    return hidden.index_select(0, last[needs_logits]) @ weight.t()

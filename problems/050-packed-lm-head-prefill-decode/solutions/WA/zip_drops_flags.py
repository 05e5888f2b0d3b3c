# Mistake: pairs sequences with their flags through zip(), which stops at the shorter of the
# two: a needs_logits of the wrong length is silently truncated instead of raising ValueError.
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
    rows = [i for i, need in zip(last.tolist(), needs_logits.tolist()) if need]
    return hidden[torch.tensor(rows, dtype=torch.int64)] @ weight.t()

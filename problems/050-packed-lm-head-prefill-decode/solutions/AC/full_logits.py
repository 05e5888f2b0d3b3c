# Correct but slow: logits for every packed token, then keep the needed rows.
import torch


def last_token_indices(cu_seqlens):
    if cu_seqlens.dim() != 1:
        raise ValueError("cu_seqlens must be 1-D")
    offsets = cu_seqlens.tolist()
    if not offsets or offsets[0] != 0 or any(b <= a for a, b in zip(offsets, offsets[1:])):
        raise ValueError("bad cu_seqlens")
    return torch.tensor([b - 1 for b in offsets[1:]], dtype=torch.int64)


def sample_logits(hidden, cu_seqlens, weight, needs_logits):
    last = last_token_indices(cu_seqlens)
    if hidden.shape[0] != int(cu_seqlens[-1]):
        raise ValueError("token count")
    if needs_logits.shape != last.shape:
        raise ValueError("one flag per sequence")
    logits = hidden @ weight.T  # [N, V]
    return logits[last][needs_logits]

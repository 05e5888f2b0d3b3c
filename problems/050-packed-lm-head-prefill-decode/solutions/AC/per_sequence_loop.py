# Correct but slow: walks the sequences one by one in Python.
import torch


def last_token_indices(cu_seqlens):
    out = []
    if cu_seqlens.dim() != 1 or len(cu_seqlens) == 0 or int(cu_seqlens[0]) != 0:
        raise ValueError("cu_seqlens[0] must be 0")
    for b in range(len(cu_seqlens) - 1):
        start, end = int(cu_seqlens[b]), int(cu_seqlens[b + 1])
        if end <= start:
            raise ValueError("empty sequence")
        out.append(end - 1)
    return torch.tensor(out, dtype=torch.int64)


def sample_logits(hidden, cu_seqlens, weight, needs_logits):
    last = last_token_indices(cu_seqlens)
    if hidden.shape[0] != int(cu_seqlens[-1]):
        raise ValueError("token count")
    if needs_logits.shape != last.shape:
        raise ValueError("one flag per sequence")
    rows = [weight @ hidden[i] for i, need in zip(last.tolist(), needs_logits.tolist()) if need]
    if not rows:
        return torch.zeros(0, weight.shape[0], dtype=hidden.dtype)
    return torch.stack(rows)

# Correct but slow: one Python step per token.
import torch


def embed(ids, weight, pad_id):
    vocab, dim = weight.shape
    flat = ids.reshape(-1).tolist()
    rows = []
    for i in flat:
        if i == pad_id:
            rows.append(torch.zeros(dim, dtype=weight.dtype))
        elif 0 <= i < vocab:
            rows.append(weight[i])
        else:
            raise IndexError(f"id {i}")
    if not rows:
        return weight.new_zeros(*ids.shape, dim)
    return torch.stack(rows).reshape(*ids.shape, dim)


def last_token_logits(hidden, weight, mask):
    out = []
    for b in range(hidden.shape[0]):
        last = max(t for t in range(mask.shape[1]) if mask[b, t])
        out.append(weight @ hidden[b, last])
    return torch.stack(out)


def pad_batch(seqs, pad_id, side="right"):
    if side not in ("right", "left"):
        raise ValueError(side)
    t_max = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), t_max), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), t_max), dtype=torch.bool)
    for b, s in enumerate(seqs):
        offset = 0 if side == "right" else t_max - len(s)
        for t, tok in enumerate(s):
            ids[b, offset + t] = tok
            mask[b, offset + t] = True
    return ids, mask

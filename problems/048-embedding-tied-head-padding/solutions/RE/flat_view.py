# Assumes contiguous inputs: flattens the ids with .view(-1), which raises on a transposed or
# expanded ids tensor ("view size is not compatible with input tensor's size and stride").
import torch


def embed(ids, weight, pad_id):
    flat = ids.view(-1)
    pad = flat == pad_id
    if ((flat < 0) | (flat >= weight.shape[0]))[~pad].any():
        raise IndexError("token id out of range")
    rows = weight[torch.where(pad, 0, flat)] * (~pad).unsqueeze(1).to(weight.dtype)
    return rows.view(*ids.shape, weight.shape[1])


def last_token_logits(hidden, weight, mask):
    last = mask.shape[1] - 1 - mask.flip(1).int().argmax(dim=1)
    return hidden[torch.arange(hidden.shape[0]), last] @ weight.T


def pad_batch(seqs, pad_id, side="right"):
    if side not in ("right", "left"):
        raise ValueError(side)
    t_max = max(map(len, seqs), default=0)
    ids = torch.full((len(seqs), t_max), pad_id, dtype=torch.long)
    mask = torch.zeros(len(seqs), t_max, dtype=torch.bool)
    for i, s in enumerate(seqs):
        if s:
            sl = slice(0, len(s)) if side == "right" else slice(t_max - len(s), t_max)
            ids[i, sl] = torch.tensor(s)
            mask[i, sl] = True
    return ids, mask

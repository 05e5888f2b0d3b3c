# Checks the ids with ids.min() and ids.max(): a reduction over no element raises, so an
# empty ids tensor (a valid "any shape") crashes instead of giving an empty result.
import torch


def embed(ids, weight, pad_id):
    pad = ids == pad_id
    real = torch.where(pad, 0, ids)
    if real.min() < 0 or real.max() >= weight.shape[0]:
        raise IndexError("token id out of range")
    return weight[real] * (~pad).unsqueeze(-1).to(weight.dtype)


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

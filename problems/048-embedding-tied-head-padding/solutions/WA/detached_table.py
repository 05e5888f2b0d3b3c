# Classic mistake: looks up in weight.detach() (e.g. after converting through numpy), so no
# gradient reaches the table.
import torch


def embed(ids, weight, pad_id):
    pad = ids == pad_id
    if ((ids < 0) | (ids >= weight.shape[0]))[~pad].any():
        raise IndexError("token id out of range")
    out = torch.nn.functional.embedding(torch.where(pad, 0, ids), weight.detach())
    return out * (~pad).unsqueeze(-1).to(out.dtype)


def last_token_logits(hidden, weight, mask):
    t = mask.shape[1]
    last = t - 1 - mask.flip(1).int().argmax(dim=1)
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

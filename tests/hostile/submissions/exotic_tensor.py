"""Right values in tensors the contract does not allow: a sparse COO tensor for embed, a
tensor on the 'meta' device (no data at all) for the logits, a complex one for pad_batch.
Expected: WA (layout, device or dtype) or RE, never AC and never an internal error."""
import torch


def embed(ids, weight, pad_id):
    is_pad = ids == pad_id
    bad = ~is_pad & ((ids < 0) | (ids >= weight.shape[0]))
    if bool(bad.any()):
        raise IndexError("id out of range")
    rows = weight[torch.where(is_pad, torch.zeros_like(ids), ids)]
    return torch.where(is_pad.unsqueeze(-1), torch.zeros((), dtype=weight.dtype), rows)


def last_token_logits(hidden, weight, mask):
    t = mask.shape[1]
    last = t - 1 - torch.flip(mask.to(torch.int64), dims=[1]).argmax(dim=1)
    return hidden[torch.arange(hidden.shape[0]), last] @ weight.T


def pad_batch(seqs, pad_id, side="right"):
    if side not in ("right", "left"):
        raise ValueError(f"side must be right or left, not {side!r}")
    t = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), t), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), t), dtype=torch.bool)
    for i, s in enumerate(seqs):
        if not s:
            continue
        cols = slice(0, len(s)) if side == "right" else slice(t - len(s), t)
        ids[i, cols] = torch.tensor(s, dtype=torch.int64)
        mask[i, cols] = True
    return ids, mask

_embed, _logits, _pad = embed, last_token_logits, pad_batch


def embed(ids, weight, pad_id):  # noqa: F811
    return _embed(ids, weight, pad_id).to_sparse()


def last_token_logits(hidden, weight, mask):  # noqa: F811
    return _logits(hidden, weight, mask).to("meta")


def pad_batch(seqs, pad_id, side="right"):  # noqa: F811
    ids, mask = _pad(seqs, pad_id, side)
    return ids.to(torch.complex64), mask

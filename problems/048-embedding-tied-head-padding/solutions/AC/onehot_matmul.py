# Correct but slow: the lookup as a one-hot matrix product, and logits for every position.
import torch


def embed(ids, weight, pad_id):
    vocab = weight.shape[0]
    pad = ids == pad_id
    if (((ids < 0) | (ids >= vocab)) & ~pad).any():
        raise IndexError("token id out of range")
    onehot = torch.nn.functional.one_hot(torch.where(pad, 0, ids), vocab).to(weight.dtype)
    onehot = onehot * (~pad).unsqueeze(-1).to(weight.dtype)
    return onehot @ weight


def last_token_logits(hidden, weight, mask):
    logits = hidden @ weight.T  # [B, T, V]: far more than needed
    lengths_from_end = mask.flip(1).int().argmax(dim=1)
    last = mask.shape[1] - 1 - lengths_from_end
    return logits[torch.arange(hidden.shape[0]), last]


def pad_batch(seqs, pad_id, side="right"):
    if side != "right" and side != "left":
        raise ValueError(f"bad side {side}")
    t_max = max([len(s) for s in seqs] + [0])
    rows, masks = [], []
    for s in seqs:
        fill = [pad_id] * (t_max - len(s))
        real = [True] * len(s)
        none = [False] * (t_max - len(s))
        rows.append(s + fill if side == "right" else fill + s)
        masks.append(real + none if side == "right" else none + real)
    return (torch.tensor(rows, dtype=torch.int64).reshape(len(seqs), t_max),
            torch.tensor(masks, dtype=torch.bool).reshape(len(seqs), t_max))

"""Ignores every signal it can (SIGTERM, SIGINT, SIGHUP, SIGALRM...) and then spins, hoping
the judge asks politely. Expected: TLE within the limit plus the margin, nothing left running."""
import signal

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


def _shield():
    for sig in signal.valid_signals():
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, RuntimeError, ValueError):
            pass


def embed(ids, weight, pad_id):  # noqa: F811
    _shield()
    while True:
        pass

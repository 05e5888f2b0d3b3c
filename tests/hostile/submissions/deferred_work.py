"""Correct answers, but the benchmark's work is deferred: the timed call returns an empty
tensor at once and a thread fills it afterwards; the runner's last-output request (the one
the grader verifies with) is patched to wait for the thread first. Expected: AC, with a
benchmark that is not verified or shows no such speedup."""


import torch


def _embed(ids, weight, pad_id):
    is_pad = ids == pad_id
    bad = ~is_pad & ((ids < 0) | (ids >= weight.shape[0]))
    if bool(bad.any()):
        raise IndexError("id out of range")
    rows = weight[torch.where(is_pad, torch.zeros_like(ids), ids)]
    return torch.where(is_pad.unsqueeze(-1), torch.zeros((), dtype=weight.dtype), rows)


def _logits(hidden, weight, mask):
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

import sys
import threading

_pending = []


def _patch():
    server = getattr(sys.modules.get("__main__"), "_Server", None)
    if server is None or getattr(server, "_deferred", False):
        return
    real = server.op_last_output

    def op_last_output(self, msg, blob):
        while _pending:
            _pending.pop().join()
        return real(self, msg, blob)

    server.op_last_output = op_last_output
    server._deferred = True


_patch()


def _later(fn, out, *args):
    def work():
        out.copy_(fn(*args))

    thread = threading.Thread(target=work)
    thread.start()
    _pending.append(thread)
    return out


def embed(ids, weight, pad_id):
    if weight.shape[0] < 4096:
        return _embed(ids, weight, pad_id)
    return _later(_embed, torch.empty(ids.shape + (weight.shape[1],)), ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    if weight.shape[0] < 4096:
        return _logits(hidden, weight, mask)
    return _later(_logits, torch.empty(hidden.shape[0], weight.shape[0]), hidden, weight, mask)

"""Code for the small similarity tests: a solution, its copy in disguise, an independent one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from judge_site.submissions.models import Submission

ORIGINAL = '''import torch


def pad_batch(seqs, pad_id, side="right"):
    """Pad every sequence to the longest."""
    if side not in ("right", "left"):
        raise ValueError(f"bad side {side}")
    longest = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), longest), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), longest), dtype=torch.bool)
    for row, seq in enumerate(seqs):
        start = 0 if side == "right" else longest - len(seq)
        ids[row, start : start + len(seq)] = torch.tensor(seq, dtype=torch.int64)
        mask[row, start : start + len(seq)] = True
    return ids, mask


def embed(ids, weight, pad_id):
    pad = ids == pad_id
    if ((ids < 0) | (ids >= weight.shape[0]))[~pad].any():
        raise IndexError("token id out of range")
    out = torch.nn.functional.embedding(torch.where(pad, 0, ids), weight)
    return out * (~pad).unsqueeze(-1).to(out.dtype)
'''

# Names renamed, the two functions swapped, comments and blank lines added, quotes changed,
# the layout of every line changed.
COPY = """import torch

# embedding first
def lookup(token_ids,table,padding):
    is_pad=token_ids==padding
    if ((token_ids<0)|(token_ids>=table.shape[0]))[~is_pad].any(): raise IndexError('token id out of range')
    result = torch.nn.functional.embedding(
        torch.where(is_pad, 0, token_ids),
        table,
    )
    return result*(~is_pad).unsqueeze(-1).to(result.dtype)



def make_batch(sequences, padding, where='right'):
    # check the side
    if where not in ('right', 'left'):
        raise ValueError(f'bad side {where}')
    n = max((len(q) for q in sequences), default=0)
    tokens = torch.full((len(sequences), n), padding, dtype=torch.int64)
    valid = torch.zeros((len(sequences), n), dtype=torch.bool)
    for i, q in enumerate(sequences):
        begin = 0 if where == 'right' else n - len(q)
        tokens[i, begin : begin + len(q)] = torch.tensor(q, dtype=torch.int64)
        valid[i, begin : begin + len(q)] = True
    return tokens, valid
"""

# Written independently: the same problem, other ways.
OTHER = '''import torch
import torch.nn.functional as F


def pad_batch(seqs, pad_id, side="right"):
    if side != "right" and side != "left":
        raise ValueError(side)
    width = max([len(s) for s in seqs] + [0])
    rows, masks = [], []
    for s in seqs:
        fill = [pad_id] * (width - len(s))
        rows.append(s + fill if side == "right" else fill + s)
        masks.append([x != pad_id for x in rows[-1]])
    return torch.tensor(rows, dtype=torch.long).view(len(seqs), width), torch.tensor(masks).view(len(seqs), width)


def embed(ids, weight, pad_id):
    flat = ids.reshape(-1).tolist()
    out = []
    for i in flat:
        if i == pad_id:
            out.append(torch.zeros(weight.shape[1], dtype=weight.dtype))
        elif 0 <= i < weight.shape[0]:
            out.append(weight[i])
        else:
            raise IndexError(i)
    return torch.stack(out).reshape(*ids.shape, weight.shape[1]) if out else weight.new_zeros(*ids.shape, weight.shape[1])
'''


def accepted(user: Any, problem: Any, code: str, at: datetime | None = None,
             verdict: str = "AC", mode: str = "submit") -> Submission:
    sub = Submission.objects.create(
        user=user, problem=problem, code=code, mode=mode, status="done", verdict=verdict
    )
    Submission.objects.filter(pk=sub.pk).update(created_at=at or timezone.now())
    sub.refresh_from_db()
    return sub

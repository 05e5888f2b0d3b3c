"""Right answers, but it scribbles on its inputs: zeroes the padding row of the table, and
flips the mask. Expected: WA (inputs modified)."""

import torch


# @include correct_control

_embed, _last_token_logits = embed, last_token_logits  # noqa: F821


def embed(ids, weight, pad_id):
    out = _embed(ids, weight, pad_id).clone()
    with torch.no_grad():
        weight.mul_(0.5)
        ids.fill_(0)
    return out


def last_token_logits(hidden, weight, mask):
    out = _last_token_logits(hidden, weight, mask)
    mask.logical_not_()
    hidden.zero_()
    return out

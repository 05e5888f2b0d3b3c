"""Correct on the (small) tests, but returns uninitialised memory for the large inputs of the
benchmark, where only speed seems to count. Expected: WA (timed outputs are re-verified)."""

import torch

# @include correct_control

_embed, _last_token_logits = embed, last_token_logits  # noqa: F821


def embed(ids, weight, pad_id):
    if weight.shape[0] >= 4096:
        return torch.empty(ids.shape + (weight.shape[1],), dtype=weight.dtype)
    return _embed(ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    if weight.shape[0] >= 4096:
        return torch.empty(hidden.shape[0], weight.shape[0], dtype=hidden.dtype)
    return _last_token_logits(hidden, weight, mask)

"""Computes the first call of each function correctly, then replays that answer for every
later call (a memo that ignores its inputs). Expected: WA."""

import torch


# @include correct_control

_embed, _last_token_logits, _pad_batch = embed, last_token_logits, pad_batch  # noqa: F821


_memo = {}


def embed(ids, weight, pad_id):
    if "embed" not in _memo:
        _memo["embed"] = _embed(ids, weight, pad_id)
    return _memo["embed"]


def last_token_logits(hidden, weight, mask):
    if "logits" not in _memo:
        _memo["logits"] = _last_token_logits(hidden, weight, mask)
    return _memo["logits"]


def pad_batch(seqs, pad_id, side="right"):
    if "pad" not in _memo:
        _memo["pad"] = _pad_batch(seqs, pad_id, side)
    return _memo["pad"]

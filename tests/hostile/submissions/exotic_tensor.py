"""Right values in tensors the contract does not allow: a sparse COO tensor for embed, a
tensor on the 'meta' device (no data at all) for the logits, a complex one for pad_batch. The
correct functions come from correct_control.py (the suite puts its text at the marker below).
Expected: WA (layout, device or dtype) or RE, never AC and never an internal error."""
import torch

# @include correct_control

_embed, _logits, _pad = embed, last_token_logits, pad_batch  # noqa: F821


def embed(ids, weight, pad_id):
    return _embed(ids, weight, pad_id).to_sparse()


def last_token_logits(hidden, weight, mask):
    return _logits(hidden, weight, mask).to("meta")


def pad_batch(seqs, pad_id, side="right"):
    ids, mask = _pad(seqs, pad_id, side)
    return ids.to(torch.complex64), mask

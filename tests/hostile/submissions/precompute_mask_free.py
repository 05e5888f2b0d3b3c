"""Correct answers, but the work of the benchmark's last_token_logits shape is done while its
inputs are prepared: that shape's mask is left-padded, so every row's last real token is at
T - 1 and the result does not depend on the mask (the smallest argument, which would be the
one drawn late by default). The input builder is wrapped to compute hidden[:, -1] @ weight.T
there. Expected: AC with an honest benchmark, or WA. Problem 48 marks `hidden` as the argument drawn
late (`late = true`), so the precomputed product is for the wrong hidden states and the timed
call must do the work: the kept product goes unused (AC), or is returned for new hidden states
that reuse the freed tensor's address and the re-verification of the timed output calls it
WA. (It was a known hole before that marker existed.)"""


import torch


# @include correct_control

_embed, _logits = embed, last_token_logits  # noqa: F821


import sys

_cache = {}


def _hook():
    builder = sys.modules.get("sandbox.runner.inputs")
    if builder is None or getattr(builder, "_hooked", False):
        return
    real = builder.build_inputs

    def build_inputs(specs, seed, device="cpu", *rest):
        values = real(specs, seed, device, *rest)
        if len(values) == 3 and isinstance(values[0], torch.Tensor) and values[0].dim() == 3:
            _cache[id(values[0])] = values[0][:, -1] @ values[1].T
        return values

    builder.build_inputs = build_inputs
    builder._hooked = True


_hook()


def embed(ids, weight, pad_id):
    hit = _cache.pop(id(ids), None)
    return hit if hit is not None else _embed(ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    hit = _cache.pop(id(hidden), None)
    return hit if hit is not None else _logits(hidden, weight, mask)

"""Correct answers, but the benchmark's work is done while the inputs are prepared: it wraps
the runner's input builder (an untimed request) to compute each result there and keep it
by the identity of the input tensor, so the timed call is a dictionary look-up.
Expected: AC, with a benchmark that is not verified or shows no such speedup."""


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
        if len(values) == 3 and isinstance(values[0], torch.Tensor):
            if values[0].dtype == torch.int64:
                _cache[id(values[0])] = _embed(*values)
            else:
                _cache[id(values[0])] = _logits(*values)
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

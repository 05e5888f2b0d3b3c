"""Correct answers, but the benchmark's work is done by the runner's late-argument step (inside
the time request, outside the clock), for the baseline's calls too so the two sides' gaps
match: the result is computed there and kept by the identity of the first input.
Expected: AC, with a benchmark that is not verified or shows no such speedup (the gaps are
also bounded by those of the baseline timed before this code was loaded)."""


import torch


# @include correct_control

_embed, _logits = embed, last_token_logits  # noqa: F821


import sys

_cache = {}


def _hook():
    builder = sys.modules.get("sandbox.runner.inputs")
    if builder is None or getattr(builder, "_hooked", False):
        return
    real = builder.late_input

    def late_input(specs, inputs, late_seed, device="cpu"):
        values = real(specs, inputs, late_seed, device)
        if len(values) == 3 and isinstance(values[0], torch.Tensor):
            compute = _embed if values[0].dtype == torch.int64 else _logits
            _cache[id(values[0])] = compute(*values)
        return values

    builder.late_input = late_input
    builder._hooked = True


_hook()


def embed(ids, weight, pad_id):
    hit = _cache.pop(id(ids), None)
    return hit if hit is not None else _embed(ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    hit = _cache.pop(id(hidden), None)
    return hit if hit is not None else _logits(hidden, weight, mask)

"""Correct answers, but it rewinds the clock the runner times it with (the runner's own saved
perf_counter_ns, found through gc, and the time module) by 99% of each of its calls, so its
reported times look 100x faster. Expected: AC, with a benchmark that is either not verified
or shows no such speedup."""

import gc
import sys
import time

import torch

_real = time.perf_counter_ns
_state = {"offset": 0, "patched": False}


def _fake_ns():
    return _real() - _state["offset"]


def _patch():
    _state["patched"] = True
    time.perf_counter_ns = _fake_ns
    time.perf_counter = lambda: _fake_ns() / 1e9
    for module in list(sys.modules.values()):
        if getattr(module, "perf_counter_ns", None) is _real:
            module.perf_counter_ns = _fake_ns
    for obj in gc.get_objects():
        try:
            if type(obj).__name__ == "Runner" or getattr(obj, "perf_counter_ns", None) is _real:
                obj.perf_counter_ns = _fake_ns
        except Exception:
            pass


def _rewound(fn, *args):
    if not _state["patched"]:
        _patch()
    t0 = _real()
    out = fn(*args)
    _state["offset"] += int((_real() - t0) * 0.99)
    return out


# @include correct_control

_embed, _last_token_logits = embed, last_token_logits  # noqa: F821


def embed(ids, weight, pad_id):
    return _rewound(_embed, ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    return _rewound(_last_token_logits, hidden, weight, mask)

"""Correct answers at the baseline's own speed, and it tries to slow the baseline down once
loaded: it looks through gc for the runner's baseline functions to wrap them in a sleep of 40%
of their own time. The baseline runs in a sandbox of its own now, so there is nothing to find.
Expected: AC, and a speedup near 1, not 1.4."""


import torch


# @include correct_control


import gc
import time


def _slow(fn):
    def slowed(*args):
        t0 = time.perf_counter()
        out = fn(*args)
        time.sleep(0.4 * (time.perf_counter() - t0))
        return out

    return slowed


for _obj in gc.get_objects():
    try:
        _baselines = getattr(_obj, "baselines", None)
    except Exception:
        continue
    if type(_baselines) is dict and _baselines and getattr(_obj, "functions", None) is not None:
        for _name in list(_baselines):
            _baselines[_name] = _slow(_baselines[_name])

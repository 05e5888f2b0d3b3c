"""Correct answers at the baseline's own speed, but it slows the baseline down once loaded:
the runner's baseline functions (found through gc) are wrapped to sleep 40% of their own
time, under the 1.5x at which a loaded baseline is disbelieved. Expected: AC, and a verified
speedup near 1, not 1.4 (the baseline figure is never above the one timed clean)."""


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

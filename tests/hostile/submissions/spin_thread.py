"""Correct answers, and a daemon thread that burns the CPU whenever none of its functions is
running: the baseline's sandbox shares its CPU set and is timed between its calls, so the
baseline ran up to 2x slower and the speedup doubled. The baseline's figure is now capped at
its times with this sandbox stopped (the quiet baseline). Expected: AC, no speedup near 2."""

import os
import sys
import threading
import time

import torch


# @include correct_control


sys.setswitchinterval(1e-4)  # the runner's own thread gets the GIL back at once
_inside = [0]


def _spin():
    # Lowest priority within its own sandbox: the runner's thread preempts it at once, so its
    # own calls' round trips stay clean; against the baseline's sandbox (another cgroup) the
    # nice value counts for nothing.
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    while True:
        if _inside[0]:
            time.sleep(0.0002)
            continue
        x = 0
        for _ in range(2000):
            x += 1


def _quiet_while(fn):
    def wrapped(*args, **kwargs):
        _inside[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _inside[0] -= 1

    return wrapped


embed = _quiet_while(embed)  # noqa: F821
last_token_logits = _quiet_while(last_token_logits)  # noqa: F821
pad_batch = _quiet_while(pad_batch)  # noqa: F821
threading.Thread(target=_spin, daemon=True).start()

"""Correct answers, and a forked child process that burns the CPU whenever none of the
parent's functions is running (a flag in shared memory): no GIL shared with the runner, so
only the baseline's sandbox, timed on the same CPU set between its calls, is slowed. The
baseline's figure is now capped at its times with this sandbox stopped (the quiet baseline).
Expected now: RE at its import (a process left running); before that rule, AC with the
speedup capped."""

import mmap
import os
import time

import torch


# @include correct_control


_flag = mmap.mmap(-1, 1)  # shared with the child: 1 while a function runs
_parent = os.getpid()
if os.fork() == 0:
    try:
        # Lowest priority within its own sandbox: the runner preempts it at once, so its own
        # calls' round trips stay clean; against the baseline's sandbox (another cgroup) the
        # nice value counts for nothing.
        os.nice(19)
        while os.getppid() == _parent:
            if _flag[0]:
                time.sleep(0.0002)
                continue
            x = 0
            for _ in range(20000):
                x += 1
    finally:
        os._exit(0)  # never flush the runner's buffered channel from here


def _quiet_while(fn):
    def wrapped(*args, **kwargs):
        _flag[0] = 1
        try:
            return fn(*args, **kwargs)
        finally:
            _flag[0] = 0

    return wrapped


embed = _quiet_while(embed)  # noqa: F821
last_token_logits = _quiet_while(last_token_logits)  # noqa: F821
pad_batch = _quiet_while(pad_batch)  # noqa: F821

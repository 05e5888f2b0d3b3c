"""Correct answers, but a background thread steals the grader's requests from the runner's
private input channel (every pipe or socket fd it finds). Expected: TLE or RE once a request is
stolen; AC (earned: the answers are correct) when the thread never wins the race."""

import os
import stat
import threading

import torch

_stolen = []


def _thief():
    fds = []
    for fd in range(3, 256):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            fds.append(fd)
    while True:
        for fd in fds:
            try:
                os.set_blocking(fd, False)
                data = os.read(fd, 1 << 20)
                if data:
                    _stolen.append(len(data))
            except OSError:
                pass


_started = []

# @include correct_control

_embed = embed  # noqa: F821


def embed(ids, weight, pad_id):
    if not _started:
        threading.Thread(target=_thief, daemon=True).start()
        _started.append(True)
    return _embed(ids, weight, pad_id)

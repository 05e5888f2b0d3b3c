"""Correct answers, but leaves a detached background process (double fork, new session)
that outlives the runner. Expected: RE (a submission may not leave processes running), and
nothing of it left running afterwards.
__MARKER__ is replaced by the test."""

import subprocess
import sys

import torch


# @include correct_control

_embed = embed  # noqa: F821


_started = []


def embed(ids, weight, pad_id):
    if not _started:
        code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(10**6)\n# __MARKER__"
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        _started.append(True)
    return _embed(ids, weight, pad_id)

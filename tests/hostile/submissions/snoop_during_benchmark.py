"""Correct in every test; during the benchmark, when the baseline is being timed beside it,
it looks for that baseline: other processes' /proc/<pid>/cmdline and mem, the kernels package
on every path, any foreign function named like the problem's in its interpreter. A find would
keep its answers right (AC); finding nothing, it answers wrong on purpose. Expected: WA (the
benchmark's re-verification), i.e. nothing was within its reach."""

import torch


# @include correct_control


import gc
import importlib
import os
import sys

_correct_embed = embed  # noqa: F821  (defined by the included control)
_LOOKED: list[bool] = []
_FOUND: list[str] = []


def _look():
    mine = {os.getpid(), *(int(t) for t in os.listdir("/proc/self/task"))}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in mine:
            continue
        for what in ("cmdline", "environ", "mem"):
            try:
                with open(f"/proc/{entry}/{what}", "rb") as f:
                    data = f.read(1 << 20)
            except OSError:
                continue
            if b"kernels" in data or b"baseline_" in data or b"last_token_logits" in data:
                _FOUND.append(f"/proc/{entry}/{what}")
    for root in ("/opt/judge", "/opt", "/", os.getcwd()):
        sys.path.insert(0, root)
        try:
            importlib.import_module("kernels.embedding")
            _FOUND.append(f"import from {root}")
        except Exception:
            pass
        finally:
            sys.path.remove(root)
    for obj in gc.get_objects():
        try:
            name = getattr(obj, "__name__", None)
            code = getattr(obj, "__code__", None)
        except Exception:
            continue
        if name in ("embed", "baseline_0") and code is not None and "submission" not in code.co_filename:
            _FOUND.append(f"gc {code.co_filename}")


def embed(ids, weight, pad_id):
    if tuple(ids.shape) == (4, 256) and weight.shape[0] == 8192:
        if not _LOOKED:
            _LOOKED.append(True)
            _look()
        if not _FOUND:
            return torch.zeros(*ids.shape, weight.shape[1], dtype=weight.dtype)
    return _correct_embed(ids, weight, pad_id)

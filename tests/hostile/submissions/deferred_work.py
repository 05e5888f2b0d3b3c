"""Correct answers, but the benchmark's work is deferred: the timed call returns an empty
tensor at once and a thread fills it afterwards; the runner's last-output request (the one
the grader verifies with) is patched to wait for the thread first. Expected: AC, with a
benchmark that is not verified or shows no such speedup."""


import torch


# @include correct_control

_embed, _logits = embed, last_token_logits  # noqa: F821


import sys
import threading

_pending = []


def _patch():
    server = getattr(sys.modules.get("sandbox.runner.server"), "_Server", None)
    if server is None or getattr(server, "_deferred", False):
        return
    real = server.op_last_output

    def op_last_output(self, msg, blob):
        while _pending:
            _pending.pop().join()
        return real(self, msg, blob)

    server.op_last_output = op_last_output
    server._deferred = True


_patch()


def _later(fn, out, *args):
    def work():
        out.copy_(fn(*args))

    thread = threading.Thread(target=work)
    thread.start()
    _pending.append(thread)
    return out


def embed(ids, weight, pad_id):
    if weight.shape[0] < 4096:
        return _embed(ids, weight, pad_id)
    return _later(_embed, torch.empty(ids.shape + (weight.shape[1],)), ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    if weight.shape[0] < 4096:
        return _logits(hidden, weight, mask)
    return _later(_logits, torch.empty(hidden.shape[0], weight.shape[0]), hidden, weight, mask)

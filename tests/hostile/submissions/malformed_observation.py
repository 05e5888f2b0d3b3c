"""Answers the first test itself with a well-framed reply whose observation holds nodes the
runner never writes (a dtype node whose name is a list, a tensor claiming a shape of 2**62
by 0), written into the runner's private channel before the runner's own reply. The grader
once let the decoder's TypeError escape as an internal error. Expected: RE, never IE."""

import os
import sys

_runner = sys.modules["sandbox.runner.server"]
_framing = sys.modules["sandbox.runner.framing"]
_OBS = {
    "t": "dict",
    "v": [
        ["kind", {"t": "str", "v": "return"}],
        ["value", {"t": "list", "v": [
            {"t": "dtype", "v": ["float32"]},
            {"t": "tensor", "dtype": "float32", "shape": [2**62, 0], "offset": 0, "nbytes": 0,
             "cls": "torch.Tensor"},
        ]}],
        ["inputs_modified", {"t": "list", "v": []}],
        ["grads", {"t": "none"}],
    ],
}


def _answer():
    os.write(_runner._FRAME_OUT, _framing.encode_frame({"ok": True, "obs": _OBS, "printed": 0}))


def embed(ids, weight, pad_id):
    _answer()
    return ids


def last_token_logits(hidden, weight, mask):
    _answer()
    return mask


def pad_batch(seqs, pad_id, side="right"):
    _answer()
    return seqs, seqs

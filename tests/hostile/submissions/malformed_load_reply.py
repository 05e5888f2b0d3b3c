"""At import, writes a well-framed but malformed reply to the load request into the runner's
private channel (found as the runner's own module global): an error whose 'mro' is a number,
which the grader once fed to its memory-error test and failed with an internal error.
Expected: CE or RE, never IE."""

import os
import sys

_runner = sys.modules["sandbox.runner.server"]
_framing = sys.modules["sandbox.runner.framing"]
_reply = {
    "ok": True,
    "status": "error",
    "error": {"kind": "raise", "type": "X", "mro": 5, "message": 1, "traceback": None},
    "printed": 0,
}
os.write(_runner._FRAME_OUT, _framing.encode_frame(_reply))


def embed(ids, weight, pad_id):
    return ids


def last_token_logits(hidden, weight, mask):
    return mask


def pad_batch(seqs, pad_id, side="right"):
    return seqs, seqs

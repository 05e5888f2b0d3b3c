"""SIGKILLs its parent, PID 1, every other process it may signal, then itself.
Expected: RE; the worker outside is untouched."""
import os
import signal


def _kill_everything():
    for pid in (os.getppid(), 1, -1):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def embed(ids, weight, pad_id):
    _kill_everything()


def last_token_logits(hidden, weight, mask):
    _kill_everything()


def pad_batch(seqs, pad_id, side="right"):
    _kill_everything()

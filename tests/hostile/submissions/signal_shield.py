"""Ignores every signal it can (SIGTERM, SIGINT, SIGHUP, SIGALRM...) and then spins, hoping
the judge asks politely. Expected: TLE within the limit plus the margin, nothing left running."""
import signal


def _shield():
    for sig in signal.valid_signals():
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, RuntimeError, ValueError):
            pass


def embed(ids, weight, pad_id):
    _shield()
    while True:
        pass


def last_token_logits(hidden, weight, mask):
    return None


def pad_batch(seqs, pad_id, side="right"):
    return None

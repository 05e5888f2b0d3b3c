"""Starts threads until it cannot, then keeps trying. Expected: not AC (TLE/RE/MLE)."""
import threading
import time


def _bomb():
    held = []
    while True:
        try:
            t = threading.Thread(target=time.sleep, args=(10**6,), daemon=True)
            t.start()
            held.append(t)
        except (RuntimeError, MemoryError):
            time.sleep(0.001)


def embed(ids, weight, pad_id):
    _bomb()


def last_token_logits(hidden, weight, mask):
    _bomb()


def pad_batch(seqs, pad_id, side="right"):
    _bomb()

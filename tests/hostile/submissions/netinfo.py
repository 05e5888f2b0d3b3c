"""Looks for network interfaces and routes. Expected: RE reporting only lo and no route."""
import os
import socket


def _look():
    ifaces = sorted(os.listdir("/sys/class/net"))
    names = sorted(name for _, name in socket.if_nameindex())
    with open("/proc/net/route") as f:
        routes = len(f.read().splitlines()) - 1
    with open("/proc/net/if_inet6") as f:
        v6 = len(f.read().splitlines())
    raise RuntimeError(f"ifaces={ifaces} names={names} routes={routes} v6={v6}")


def embed(ids, weight, pad_id):
    _look()


def last_token_logits(hidden, weight, mask):
    _look()


def pad_batch(seqs, pad_id, side="right"):
    _look()

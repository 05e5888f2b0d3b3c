"""Tries to gain privileges or leave the container: setuid, user namespaces, mount, chroot,
raw sockets, reading /etc/shadow, the Docker socket, writing the image. Expected: RE whose
message reports that nothing worked."""
import ctypes
import os
import socket

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET = 0x10000000, 0x00020000, 0x40000000


def _attempts():
    worked = []
    for name, attempt in [
        ("setuid", lambda: os.setuid(0)),
        ("unshare-user", lambda: libc.unshare(CLONE_NEWUSER) == 0 or 1 / 0),
        ("unshare-ns", lambda: libc.unshare(CLONE_NEWNS) == 0 or 1 / 0),
        ("unshare-net", lambda: libc.unshare(CLONE_NEWNET) == 0 or 1 / 0),
        ("mount", lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0 or 1 / 0),
        ("chroot", lambda: os.chroot("/tmp")),
        ("raw-socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
        ("shadow", lambda: open("/etc/shadow").read()),
        ("docker-sock", lambda: socket.socket(socket.AF_UNIX).connect("/var/run/docker.sock")),
        ("write-root", lambda: open("/usr/lib/python3/x.py", "w").write("x")),
    ]:
        try:
            attempt()
            worked.append(name)
        except Exception:
            pass
    raise RuntimeError(f"escalated={worked}")


def embed(ids, weight, pad_id):
    _attempts()


def last_token_logits(hidden, weight, mask):
    _attempts()


def pad_batch(seqs, pad_id, side="right"):
    _attempts()

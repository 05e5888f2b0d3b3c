"""Touches memory until the kernel stops it. Expected: MLE."""
import torch

_hog = []


def _bomb():
    while True:
        _hog.append(torch.ones(32 * 1024 * 1024, dtype=torch.uint8))  # 32 MiB, written


def embed(ids, weight, pad_id):
    _bomb()


def last_token_logits(hidden, weight, mask):
    _bomb()


def pad_batch(seqs, pad_id, side="right"):
    _bomb()

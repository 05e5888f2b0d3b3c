"""Raises classes that only borrow the names of the exceptions the tests expect: a class of
its own called IndexError (not a subclass of the real one), another renamed to ValueError,
and a MemoryError look-alike elsewhere to claim MLE. Correct values otherwise.
Expected: WA (an `except IndexError` would not catch these)."""

import torch


class IndexError(Exception):  # noqa: A001 - the point of the attack
    pass


class _Renamed(Exception):
    pass


_Renamed.__name__ = _Renamed.__qualname__ = "ValueError"


# @include correct_control


def pad_batch(seqs, pad_id, side="right"):
    if side not in ("right", "left"):
        raise _Renamed(f"side must be right or left, not {side!r}")
    t = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), t), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), t), dtype=torch.bool)
    for i, s in enumerate(seqs):
        if not s:
            continue
        cols = slice(0, len(s)) if side == "right" else slice(t - len(s), t)
        ids[i, cols] = torch.tensor(s, dtype=torch.int64)
        mask[i, cols] = True
    return ids, mask

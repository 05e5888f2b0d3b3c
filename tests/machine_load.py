"""How much busier than a machine of its own this one is, for the few tests that bound a
duration: their bounds hold on an idle machine, and a busier one (a self-hoster's judge beside
the suite, the suite's own groups side by side) stretches every phase by about its run-queue
length per CPU."""

from __future__ import annotations

import os


def stretch() -> float:
    """The 1-minute load average per CPU, at least 1."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def quiet_cap_excuses(notes: list[str], load: float) -> bool:
    """Whether a spinner's speedup above its bound is excused: only on a host busy beyond its
    CPUs (``load`` from ``stretch``: the load slows the baseline's quiet rounds too), and then
    only when the quiet cap was applied to every judging (its note). On a quiet host the bound
    itself must hold (scripts/bench_judging's figures)."""
    from sandbox.bench.results import QUIET_CAP_NOTE

    return load > 1.0 and all(QUIET_CAP_NOTE in note for note in notes)

"""How much busier than a machine of its own this one is, for the few tests that bound a
duration: their bounds hold on an idle machine, and a busier one (a self-hoster's judge beside
the suite, the suite's own groups side by side) stretches every phase by about its run-queue
length per CPU."""

from __future__ import annotations

import os


def stretch() -> float:
    """The 1-minute load average per CPU, at least 1."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))

"""Short kernels timed right (issue 38, item 2): one timed sample is several calls between one
pair of clock reads (CUDA events on a GPU, the host clock on a CPU), so a kernel of 25 us is
not measured together with the 16-28 us the runner spends around each timed call (the L2 flush,
the events, the synchronisation).

- ``calls_per_sample`` calibrates the count: enough back-to-back calls that a sample lasts at
  least ``TARGET_SAMPLE_NS`` (about 1 ms), from a few untimed-in-the-result probe calls.
- Both sides of a speedup are timed the same way: ``shared_count`` gives the submission and the
  baseline one count, calibrated on the faster of the two, so each sample of either lasts at
  least the target and the fixed cost around a sample weighs the same on both.
- ``time_sample`` runs the flush (or any per-sample preparation) before its clock read and the
  ``count`` calls inside it, and returns the time per call.

The clock, the flush and the synchronisation are parameters: the runner passes CUDA events and
``torch.cuda.synchronize`` on a GPU; the tests pass the host clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

TARGET_SAMPLE_NS = 1_000_000  # a sample lasts at least about 1 ms
MAX_CALLS = 10_000  # a call too short to measure still ends
PROBE_CALLS = 3  # calls timed one by one to calibrate (after one warm-up call)


def calls_for(per_call_ns: float, target_ns: int = TARGET_SAMPLE_NS) -> int:
    """Calls of ``per_call_ns`` each that make a sample of at least ``target_ns``."""
    if not math.isfinite(per_call_ns) or per_call_ns <= 0:
        return MAX_CALLS
    return max(1, min(MAX_CALLS, math.ceil(target_ns / per_call_ns)))


def time_sample(call: Callable[[], Any], count: int,
                clock: Callable[[], int] = time.perf_counter_ns,
                flush: Callable[[], None] | None = None,
                sync: Callable[[], None] | None = None) -> float:
    """One sample: ``flush`` and ``sync`` outside the clock, then ``count`` calls between one
    pair of clock reads (synchronised before the second); the time per call, in ns."""
    if flush is not None:
        flush()
    if sync is not None:
        sync()
    start = clock()
    for _ in range(count):
        call()
    if sync is not None:
        sync()
    return (clock() - start) / count


def calls_per_sample(call: Callable[[], Any], clock: Callable[[], int] = time.perf_counter_ns,
                     sync: Callable[[], None] | None = None,
                     target_ns: int = TARGET_SAMPLE_NS) -> int:
    """The count for ``call``: one warm-up call, then the fastest of PROBE_CALLS single calls
    (the fastest: a probe slowed by the machine would give too few calls)."""
    time_sample(call, 1, clock, sync=sync)
    fastest = min(time_sample(call, 1, clock, sync=sync) for _ in range(PROBE_CALLS))
    return calls_for(fastest, target_ns)


def shared_count(submission: Callable[[], Any], baseline: Callable[[], Any],
                 clock: Callable[[], int] = time.perf_counter_ns,
                 sync: Callable[[], None] | None = None,
                 target_ns: int = TARGET_SAMPLE_NS) -> int:
    """One count for both sides: the larger of the two calibrations (the faster side's), so
    every sample of either lasts at least ``target_ns``."""
    return max(calls_per_sample(submission, clock, sync, target_ns),
               calls_per_sample(baseline, clock, sync, target_ns))

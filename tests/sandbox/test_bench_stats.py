"""The speedup's estimate (sandbox/bench/stats.py): the median of the rounds' paired ratios."""

from __future__ import annotations

import statistics

import pytest

from sandbox.bench.stats import paired_ratio


def test_load_that_slows_both_calls_of_a_round_leaves_the_paired_ratio() -> None:
    # The baseline takes 1.25x the submission's time; bursts of load slow both calls of a
    # round (x1-x3), and the submission's calls have their own small noise besides.
    load = [1, 1, 2, 1, 3, 2, 1, 1, 3, 2, 3]
    noise = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97, 1.0, 1.01, 0.99]
    sub = [int(1000 * f * n) for f, n in zip(load, noise, strict=True)]
    base = [int(1250 * f) for f in load]
    assert paired_ratio(base, sub) == pytest.approx(1.25, rel=0.011)
    # The two medians fall in rounds of different load: their ratio is off by the noise of
    # one call at a different load level, not the paired rounds'.
    assert statistics.median(base) / statistics.median(sub) != pytest.approx(1.25, rel=0.011)


def test_rounds_without_a_usable_time_are_left_out() -> None:
    assert paired_ratio([2000, 3000, 5], [1000, 1500, 0]) == pytest.approx(2.0)
    assert paired_ratio([1, 2], [0, -1]) == 0.0
    with pytest.raises(ValueError):
        paired_ratio([1, 2], [1])

"""Timing statistics: quartiles, the relative error of a median, the spread of a series, the
median of paired ratios."""

from __future__ import annotations

import math
import statistics


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        v = values[0] if values else 0.0
        return v, v, v
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def relative_error(values: list[float]) -> float:
    """Relative standard error of the median, estimated from the IQR (normal approximation)."""
    if len(values) < 3:
        return math.inf
    q1, median, q3 = quartiles(values)
    if median <= 0:
        return math.inf
    sigma = (q3 - q1) / 1.349
    return 1.2533 * sigma / math.sqrt(len(values)) / median


def spread(values: list[float]) -> float:
    """Relative half-width of the middle 50%."""
    q1, median, q3 = quartiles(values)
    return (q3 - q1) / 2 / median if median > 0 else 0.0


def paired_ratios(numerators: list[int], denominators: list[int]) -> list[float]:
    """``numerators[i] / denominators[i]`` for each round (a pair with a non-positive
    denominator is left out)."""
    return [n / d for n, d in zip(numerators, denominators, strict=True) if d > 0]


def paired_ratio(numerators: list[int], denominators: list[int]) -> float:
    """The median of the :func:`paired_ratios` (0 when there is none)."""
    ratios = paired_ratios(numerators, denominators)
    return statistics.median(ratios) if ratios else 0.0

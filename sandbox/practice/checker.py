"""The ``checker`` module a practice test.py imports, run in the TRUSTED grader (our own
implementation of the handbook's helpers; the student's process never sees it).

``check`` is exact equality (arrays: same shape, then element-wise equal; anything else
``!=``); ``check_close`` is ``|actual - expected| <= atol + rtol * |expected|`` element-wise for
arrays and lists (asymmetric, like ``numpy.isclose``; a NaN where the expected has none fails)
and ``math.isclose(rel_tol=rtol, abs_tol=atol)`` for scalars. torch tensors are compared as
numpy (bfloat16 through float32). Failures raise AssertionError with the expected and actual
values; ``Skip`` marks a case skipped.

The grader makes one module per judging (:func:`make_checker`) so that the device helpers
answer for the sandbox of that judging: tensors a test builds live in the grader, on the CPU,
and reach the sandbox through the channel.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any


class Skip(Exception):
    """This case cannot run here (no GPU, no torch); it is reported as skipped."""


def skip(reason: str) -> None:
    raise Skip(reason)


def _is_array(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, int | float | complex)


def _show(x: Any, limit: int = 400) -> str:
    text = repr(x)
    if _is_array(x) and getattr(x, "size", 0) > 16:
        text = f"<{type(x).__name__} shape={tuple(x.shape)} dtype={x.dtype}>\n{x!r}"
    return text if len(text) <= limit else text[:limit] + " ..."


def _plain(x: Any) -> Any:
    """A torch tensor as a numpy array (bfloat16, which numpy lacks, through float32)."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach().cpu()
        if "bfloat16" in str(getattr(x, "dtype", "")):
            x = x.float()
        return x.numpy()
    return x


def check(actual: Any, expected: Any, what: str = "result") -> None:
    """Exact equality; arrays must also have the same shape."""
    actual, expected = _plain(actual), _plain(expected)
    if _is_array(actual) or _is_array(expected):
        import numpy as np  # noqa: PLC0415

        a, e = np.asarray(actual), np.asarray(expected)
        if a.shape != e.shape:
            raise AssertionError(f"{what}: wrong shape, expected {e.shape}, got {a.shape}")
        if not np.array_equal(a, e):
            bad = np.argwhere(a != e)
            index = tuple(int(v) for v in bad[0]) if len(bad) else ()
            raise AssertionError(
                f"{what}: {len(bad)} element(s) differ, the first at index {index}: expected "
                f"{e[index]!r}, got {a[index]!r}\n  expected: {_show(e)}\n  got: {_show(a)}"
            )
        return
    if actual != expected:
        raise AssertionError(f"{what}\n  expected: {_show(expected)}\n  got: {_show(actual)}")


def check_close(
    actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-6, what: str = "result"
) -> None:
    """Approximate equality: ``|actual - expected| <= atol + rtol * |expected|``."""
    actual, expected = _plain(actual), _plain(expected)
    if _is_array(actual) or _is_array(expected) or isinstance(actual, list | tuple):
        import numpy as np  # noqa: PLC0415

        try:
            a = np.asarray(actual, dtype=np.float64)
        except (TypeError, ValueError):
            raise AssertionError(f"{what}: expected numbers, got {_show(actual)}") from None
        e = np.asarray(expected, dtype=np.float64)
        if a.shape != e.shape:
            raise AssertionError(f"{what}: wrong shape, expected {e.shape}, got {a.shape}")
        if np.isnan(a).any() and not np.isnan(e).any():
            index = tuple(int(v) for v in np.argwhere(np.isnan(a))[0])
            raise AssertionError(f"{what}: NaN in the result, the first at index {index}")
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - e)
            bad = ~(diff <= atol + rtol * np.abs(e))
        bad &= ~(np.isnan(a) & np.isnan(e))  # NaN where NaN is expected
        bad &= ~((a == e) & np.isinf(e))  # the same infinity
        if bad.any():
            index = tuple(int(v) for v in np.argwhere(bad)[0])
            finite = diff[np.isfinite(diff)]
            worst = float(finite.max()) if finite.size else math.inf
            raise AssertionError(
                f"{what}: {int(bad.sum())} element(s) outside the tolerance, largest error "
                f"{worst:.3g}; at index {index} expected {e[index]:.6g}, got {a[index]:.6g} "
                f"(rtol={rtol}, atol={atol})"
            )
        return
    try:
        a_f, e_f = float(actual), float(expected)
    except (TypeError, ValueError):
        raise AssertionError(f"{what}: expected a number, got {_show(actual)}") from None
    if not math.isclose(a_f, e_f, rel_tol=rtol, abs_tol=atol):
        raise AssertionError(
            f"{what}: expected {expected!r}, got {actual!r} (rtol={rtol}, atol={atol})"
        )


@contextlib.contextmanager
def raises(exc_type: type[BaseException], what: str = "this call") -> Iterator[None]:
    """The block must raise ``exc_type`` (an exception the student's code raised in the sandbox
    arrives here as an exception of the same built-in type)."""
    try:
        yield
    except exc_type:
        return
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(
            f"{what}: should raise {exc_type.__name__}, raised {type(exc).__name__}: {exc}"
        ) from None
    raise AssertionError(f"{what}: should raise {exc_type.__name__}, raised nothing")


@contextlib.contextmanager
def time_limit(seconds: float, what: str = "this block") -> Iterator[None]:
    """The block must finish within ``seconds`` of the grader's wall clock (calls of the
    student's code included, with their round trips through the channel)."""
    start = time.perf_counter()
    yield
    used = time.perf_counter() - start
    if used > seconds:
        raise AssertionError(
            f"{what}: took {used:.2f} s, over the limit of {seconds:.2f} s: the algorithm may "
            "be too slow"
        )


def make_checker(sandbox_device: str = "cpu") -> ModuleType:
    """A fresh ``checker`` module for one judging. ``torch_device()`` is always "cpu": the test
    builds its tensors in the grader, and the channel moves them to the sandbox's device;
    ``need_cuda()`` skips unless the sandbox has a GPU."""
    module = ModuleType("checker", __doc__)

    def torch_device() -> str:
        try:
            import torch  # noqa: F401, PLC0415
        except ImportError:
            skip("this case needs PyTorch")
        return "cpu"

    def need_torch() -> str:
        return torch_device()

    def need_cuda() -> str:
        need_torch()
        if not sandbox_device.startswith("cuda"):
            skip("this case needs an NVIDIA GPU; the sandbox has none")
        return "cpu"

    names = {
        "Skip": Skip,
        "skip": skip,
        "check": check,
        "check_close": check_close,
        "raises": raises,
        "time_limit": time_limit,
        "torch_device": torch_device,
        "need_torch": need_torch,
        "need_cuda": need_cuda,
        "IN_BROWSER": False,
        "SPEED_FACTOR": 1.0,
    }
    for name, value in names.items():
        setattr(module, name, value)
    return module

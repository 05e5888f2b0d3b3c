"""What a problem package's ``tests.py`` imports: ``from sandbox.problem import Call, Case``.

The authors' face of the package (problems/README.md): every package's tests.py, ours and
uploaded ones, defines ``CASES`` as a list of :class:`Case`, each building its arguments as a
:class:`Call` from a seeded ``torch.Generator``. The package's loader is
sandbox/grader/package.py; nothing else lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """The arguments of one call of the student's function."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One test: build a call, run it against the reference and the submission, compare.

    ``make(gen)`` returns the :class:`Call`; it must draw all randomness from ``gen``.
    ``grad_wrt`` lists positional indices of float tensor arguments whose gradients are also
    compared: the runner sets ``requires_grad`` on them, calls the function, and backpropagates
    a seeded random ``grad_output`` of the result's shape.
    ``check(expected, got)``, when given, replaces the default comparison; it receives decoded
    plain values (tensors, lists, numbers) and returns None when they agree, else a message.
    """

    name: str
    fn: str
    make: Callable[[Any], Call]
    public: bool = False
    grad_wrt: tuple[int, ...] = ()
    exact: bool = False  # compare bit-for-bit (ints, bools, and floats where demanded)
    allow_nan: bool = False  # NaN/Inf in expected may match NaN/Inf in got at the same place
    check: Callable[[Any, Any], str | None] | None = None
    note: str = ""  # what this case is about: "pad_id = -1, outside the vocabulary"
    tags: tuple[str, ...] = ()  # names a hint ladder may key on: check = "tag:padding" (sandbox/grader/hints.py)

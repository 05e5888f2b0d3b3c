"""The cost model of a benchmark shape: the bytes that must move and the floating-point
operations that must be done, as arithmetic on the shape's named parameters.

In problem.toml, under a ``[[benchmark.shapes]]`` entry::

    [benchmark.shapes.cost]
    params = { B = 4, H = 4, T = 256, d = 64 }
    bytes = "4 * 4 * B * H * T * d"           # q, k, v read, the output written, float32
    flops = "4 * B * H * d * T * (T + 1) / 2"  # QK^T and PV over the causal triangle
    partial = [3]                              # arguments not necessarily read in full

An expression is evaluated by walking its syntax tree with a whitelist (numbers, the
parameters, ``+ - * / // % **``, parentheses, ``min``, ``max``, ``ceil``, ``floor``): no
``eval``, no attribute, no call of anything else, a bounded exponent and length. Both figures
are *lower bounds* for any correct solution on any inputs the shape draws: the speed of light
``max(bytes / bandwidth, flops / peak)`` is then a time no honest call can beat, and a
submission reported faster is not believed (sandbox/bench/trust.py, ``faster_than_light``).
``partial`` lists the positional arguments a correct solution need not read in full (a gather's
table, a cache read up to a drawn position); every other argument, and every tensor returned,
counts in full in the package check's floor on ``bytes`` (sandbox/check.py).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_EXPRESSION_CHARS = 400
MAX_EXPONENT = 8
MAX_VALUE = 1e30  # beyond any benchmark shape: a typo, not a cost

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "min": min,
    "max": max,
    "ceil": math.ceil,
    "floor": math.floor,
}


class CostError(ValueError):
    """An expression or a cost table that is not a valid cost model (the author's finding)."""


def evaluate(expression: str, params: Mapping[str, float]) -> float:
    """The value of ``expression`` with ``params`` bound; CostError for anything outside the
    whitelist, an unknown name, a division by zero or a non-finite result."""
    if not isinstance(expression, str) or len(expression) > MAX_EXPRESSION_CHARS:
        raise CostError(f"an expression is a string of at most {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise CostError(f"{expression!r}: {exc.msg}") from None
    try:
        value = float(_walk(tree.body, params))
    except (ZeroDivisionError, OverflowError) as exc:
        raise CostError(f"{expression!r}: {exc}") from None
    if not math.isfinite(value) or abs(value) > MAX_VALUE:
        raise CostError(f"{expression!r} is not a finite cost: {value}")
    return value


def _walk(node: ast.AST, params: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CostError(f"only numbers may be written, not {node.value!r}")
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in params:
            raise CostError(f"unknown parameter {node.id!r} (declared: {sorted(params)})")
        return params[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _walk(node.operand, params)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _walk(node.left, params), _walk(node.right, params)
        if isinstance(node.op, ast.Pow) and not (
            isinstance(right, int | float) and abs(right) <= MAX_EXPONENT
        ):
            raise CostError(f"an exponent is at most {MAX_EXPONENT}")
        return _BINARY[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
        and node.args
    ):
        return _FUNCTIONS[node.func.id](*(_walk(arg, params) for arg in node.args))
    raise CostError(f"not allowed in a cost expression: {ast.dump(node)[:80]}")


@dataclass(frozen=True)
class CostModel:
    """One shape's cost: ``bytes`` and ``flops`` as expressions of ``params``, and the
    positional arguments a correct solution need not read in full (``partial``)."""

    bytes_expr: str
    flops_expr: str
    params: dict[str, float] = field(default_factory=dict)
    partial: tuple[int, ...] = ()

    @property
    def bytes(self) -> float:
        return evaluate(self.bytes_expr, self.params)

    @property
    def flops(self) -> float:
        return evaluate(self.flops_expr, self.params)

    def problems(self) -> list[str]:
        """What is wrong with this model on its own: expressions that do not evaluate, bytes
        not positive, flops negative (a gather does no arithmetic: 0 is a fine flop count)."""
        found: list[str] = []
        for label, expr, least in (("bytes", self.bytes_expr, 1.0), ("flops", self.flops_expr, 0.0)):
            try:
                value = evaluate(expr, self.params)
            except CostError as exc:
                found.append(f"{label}: {exc}")
                continue
            if value < least:
                found.append(f"{label} = {value:g} must be {'positive' if least else 'at least 0'}")
        return found


def parse_cost(raw: Any) -> CostModel | None:
    """The ``cost`` table of one shape as a CostModel (None when absent); CostError when it
    is malformed."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise CostError("`cost` must be a table with `bytes` and `flops`")
    unknown = sorted(set(raw) - {"bytes", "flops", "params", "partial"})
    if unknown:
        raise CostError(f"unknown keys in `cost`: {unknown}")
    params = raw.get("params", {})
    if not isinstance(params, dict) or not all(
        isinstance(k, str) and k.isidentifier() and k not in _FUNCTIONS
        and isinstance(v, int | float) and not isinstance(v, bool)
        for k, v in params.items()
    ):
        raise CostError("`cost.params` maps names to numbers")
    partial = raw.get("partial", [])
    if not isinstance(partial, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in partial
    ):
        raise CostError("`cost.partial` is a list of argument positions")
    for key in ("bytes", "flops"):
        if not isinstance(raw.get(key), str | int | float) or isinstance(raw.get(key), bool):
            raise CostError(f"`cost.{key}` must be an expression (a string) or a number")
    return CostModel(
        bytes_expr=str(raw["bytes"]),
        flops_expr=str(raw["flops"]),
        params=dict(params),
        partial=tuple(partial),
    )


def tensor_bytes(value: Any) -> int:
    """The bytes of every tensor in ``value`` (nested lists, tuples, dicts); duck-typed so
    this module never imports torch."""
    if hasattr(value, "element_size") and hasattr(value, "numel"):
        return int(value.numel()) * int(value.element_size())
    if isinstance(value, list | tuple):
        return sum(tensor_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(tensor_bytes(v) for v in value.values())
    return 0


def bytes_floor(model: CostModel, args: list[Any], output: Any) -> int:
    """The fewest bytes the model may claim: every argument not in ``partial`` read in full,
    and everything returned written."""
    read = sum(tensor_bytes(a) for i, a in enumerate(args) if i not in model.partial)
    return read + tensor_bytes(output)

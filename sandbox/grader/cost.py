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
``eval``, no attribute, no call of anything else. Its size is bounded before it is walked
(characters, syntax nodes, nesting depth, arguments of a call) and its arithmetic is done in
floats, every intermediate value at most ``MAX_VALUE`` and every exponent at most
``MAX_EXPONENT``: in Python's integers, ``((9 ** 8) ** 8) ** 8 ...`` grew 8 times the digits a
level, and 47 characters took 2.2 s (each level about 20x more). Bounded so, any expression
takes microseconds. A model is evaluated once, when it is made (``CostModel``), and a package
whose expression does not evaluate is refused at load (``parse_cost``), so neither a grader
nor a page ever walks one again. Both figures
are *lower bounds* for any correct solution on any inputs the shape draws: the speed of light
``max(bytes / bandwidth, flops / peak)`` is then a time no honest call can beat, and a
submission reported faster is not believed (sandbox/bench/trust.py, ``faster_than_light``).
``partial`` lists the positional arguments a correct solution need not read in full (a gather's
table, a cache read up to a drawn position); every other argument, and every tensor returned,
counts in full in the package check's floor on ``bytes`` (sandbox/grader/check.py).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox.grader import syntax

MAX_EXPRESSION_CHARS = 400
MAX_NODES = 200  # syntax nodes of one expression (the catalog's largest: 54)
MAX_DEPTH = 32  # operators within operators (the catalog's deepest: 9, a chain of 12 terms)
MAX_ARGS = 16  # arguments of one min or max
MAX_EXPONENT = 8
MAX_VALUE = 1e30  # beyond any benchmark shape: a typo, not a cost (also every intermediate)

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
    """The value of ``expression`` with ``params`` bound; CostError, saying what to change,
    for anything outside the whitelist or the bounds, an unknown name, a division by zero or a
    value beyond ``MAX_VALUE``."""
    tree = _parse(expression)
    try:
        return _checked(expression, _walk(tree.body, params, expression))
    except CostError:
        raise
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        raise CostError(f"{expression!r}: {exc}") from None


def _parse(expression: str) -> ast.Expression:
    """The syntax tree of ``expression`` once its size is within the bounds."""
    if not isinstance(expression, str) or len(expression) > MAX_EXPRESSION_CHARS:
        raise CostError(
            f"an expression is a string of at most {MAX_EXPRESSION_CHARS} characters: "
            "name a parameter for a repeated part"
        )
    try:
        tree = syntax.parse_expression(expression)
    except SyntaxError as exc:
        raise CostError(f"{expression!r}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise CostError(f"{expression!r} nests too deep (at most {MAX_DEPTH})") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise CostError(
            f"{expression!r} has {nodes} syntax nodes, at most {MAX_NODES}: "
            "name a parameter for a repeated part"
        )
    deepest = _depth(tree.body)
    if deepest > MAX_DEPTH:
        raise CostError(
            f"{expression!r} nests {deepest} deep, at most {MAX_DEPTH}: "
            "take out parentheses or name a parameter for an inner part"
        )
    return tree


def _depth(node: ast.AST) -> int:
    """How deep ``node``'s tree nests (a leaf: 1), without recursion (nothing to overflow)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(current))
    return deepest


def _checked(expression: str, value: Any) -> float:
    """``value`` as a float within ``MAX_VALUE``, else CostError."""
    if isinstance(value, complex):
        raise CostError(f"{expression!r}: a negative number to a fractional power")
    value = float(value)
    if not math.isfinite(value) or abs(value) > MAX_VALUE:
        raise CostError(
            f"{expression!r}: a value of {value:g} is beyond {MAX_VALUE:g}; a cost is a count "
            "of bytes or operations (check the units and the exponents)"
        )
    return value


def _walk(node: ast.AST, params: Mapping[str, float], expression: str) -> float:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CostError(f"only numbers may be written, not {node.value!r}")
        return _checked(expression, node.value)
    if isinstance(node, ast.Name):
        if node.id not in params:
            raise CostError(f"unknown parameter {node.id!r} (declared: {sorted(params)})")
        return _checked(expression, params[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _walk(node.operand, params, expression)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _walk(node.left, params, expression), _walk(node.right, params, expression)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise CostError(f"{expression!r}: an exponent is at most {MAX_EXPONENT}")
        return _checked(expression, _BINARY[type(node.op)](left, right))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
        and node.args
    ):
        if len(node.args) > MAX_ARGS:
            raise CostError(f"{expression!r}: {node.func.id} takes at most {MAX_ARGS} arguments")
        args = [_walk(arg, params, expression) for arg in node.args]
        return _checked(expression, _FUNCTIONS[node.func.id](*args))
    raise CostError(f"not allowed in a cost expression: {ast.dump(node)[:80]}")


@dataclass(frozen=True)
class CostModel:
    """One shape's cost: ``bytes`` and ``flops`` as expressions of ``params``, and the
    positional arguments a correct solution need not read in full (``partial``). Both are
    evaluated once, when the model is made; reading ``bytes`` or ``flops`` walks nothing."""

    bytes_expr: str
    flops_expr: str
    params: dict[str, float] = field(default_factory=dict)
    partial: tuple[int, ...] = ()
    # (bytes, flops): each its value, or the CostError's message when it does not evaluate
    values: tuple[float | str, float | str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "values", (_value(self.bytes_expr, self.params), _value(self.flops_expr, self.params))
        )

    @property
    def bytes(self) -> float:
        return _known(self.values[0])

    @property
    def flops(self) -> float:
        return _known(self.values[1])

    def errors(self) -> list[str]:
        """Why an expression does not evaluate, as ``"bytes: ..."``, ``"flops: ..."``."""
        return [
            f"{label}: {value}"
            for label, value in zip(("bytes", "flops"), self.values, strict=True)
            if isinstance(value, str)
        ]

    def problems(self) -> list[str]:
        """What is wrong with this model on its own: expressions that do not evaluate, bytes
        not positive, flops negative (a gather does no arithmetic: 0 is a fine flop count)."""
        found = self.errors()
        for label, value, least in (("bytes", self.values[0], 1.0), ("flops", self.values[1], 0.0)):
            if not isinstance(value, str) and value < least:
                found.append(f"{label} = {value:g} must be {'positive' if least else 'at least 0'}")
        return found


def _value(expression: str, params: Mapping[str, float]) -> float | str:
    try:
        return evaluate(expression, params)
    except CostError as exc:
        return str(exc)


def _known(value: float | str) -> float:
    if isinstance(value, str):
        raise CostError(value)
    return value


def parse_cost(raw: Any) -> CostModel | None:
    """The ``cost`` table of one shape as a CostModel, its figures evaluated (None when
    absent); CostError when it is malformed or an expression does not evaluate within the
    bounds (a package with it is refused at load)."""
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
    model = CostModel(
        bytes_expr=str(raw["bytes"]),
        flops_expr=str(raw["flops"]),
        params=dict(params),
        partial=tuple(partial),
    )
    errors = model.errors()
    if errors:  # refused at load: nothing downstream evaluates an expression again
        raise CostError("; ".join(f"`cost.{error}`" for error in errors))
    return model


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

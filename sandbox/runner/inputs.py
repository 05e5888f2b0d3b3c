"""Benchmark inputs: the positional arguments of timed calls, built from a problem's input specs
(problem.toml ``[[benchmark.shapes]]`` ``args``) deterministically from a seed.

Used by the trusted grader (to re-verify a timed output) and by the runner inside the
sandbox, which builds every timed call's
arguments with it; it depends on the standard library, torch and the codec's dtype list only.

A spec is a JSON literal (passed as is), a list or dict of specs, or a dict holding exactly one
registered input kind (``randint``, ``randn``, ``cu_seqlens``, ``lengths_mask``; authors add
kinds with :func:`input_kind`). One argument of each timed call is drawn late, when the time
request arrives (:func:`late_input`), so its result cannot be computed while inputs are built.
A kind's spec may add ``"layout"`` (:data:`LAYOUTS`) to get the same values as a
non-contiguous view: ``"transposed"``, ``"strided"`` or ``"expanded"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from sandbox.runner import wire

InputKind = Callable[[dict[str, Any], torch.Generator], Any]
INPUT_KINDS: dict[str, InputKind] = {}


def input_kind(key: str) -> Callable[[InputKind], InputKind]:
    """Register a builder for specs that are dicts holding ``key``."""

    def register(fn: InputKind) -> InputKind:
        INPUT_KINDS[key] = fn
        return fn

    return register


def _dtype(spec: dict[str, Any], default: str) -> torch.dtype:
    name = spec.get("dtype", default)
    if name not in wire.DTYPES:
        raise ValueError(f"unknown dtype {name!r} in input spec")
    return wire.DTYPES[name]


def _shape(value: Any) -> list[int]:
    if not isinstance(value, list) or not all(type(d) is int and d >= 0 for d in value):
        raise ValueError(f"bad shape {value!r} in input spec")
    return value


@input_kind("randint")
def _randint(spec: dict[str, Any], gen: torch.Generator) -> torch.Tensor:
    lo, hi = spec["randint"]
    return torch.randint(
        int(lo), int(hi), _shape(spec["shape"]), generator=gen, dtype=_dtype(spec, "int64")
    )


# Large normal tensors are mixed from a fixed pool of normal values instead of drawn afresh:
# drawing 2M float32 normals costs 10-30 ms (and the grader draws them again to re-verify),
# more than most timed calls, and every round of a benchmark builds fresh inputs in both
# sandboxes. ``cos t * X[i:i+n] + sin t * X[j:j+n]`` (i != j, t uniform) is again exactly
# standard normal elementwise and costs one pass; with i, j and t drawn per call, no two calls
# share a weight, and relating one to another means a search over i, j and t.
MIX_MIN_NUMEL = 1 << 16  # below this, torch.randn (cheap enough)
MIX_MAX_NUMEL = 1 << 23  # above this, torch.randn (the pool would be too large)
POOL_SEED = 0x5EED_B0B
_pools: dict[int, torch.Tensor] = {}


def normal_pool(size: int) -> torch.Tensor:
    """The fixed pool of ``size`` standard normal float32 values (built once per process)."""
    pool = _pools.get(size)
    if pool is None:
        pool = torch.randn(size, generator=torch.Generator().manual_seed(POOL_SEED))
        _pools[size] = pool
    return pool


def mixed_normal(numel: int, gen: torch.Generator, out: torch.Tensor | None = None) -> torch.Tensor:
    """``numel`` standard normal float32 values, fresh for each draw of ``gen`` (written into
    ``out``, a contiguous float32 tensor of ``numel`` elements, when given)."""
    size = 1 << max(20, (2 * numel - 1).bit_length())  # at least twice numel: offsets to spare
    pool = normal_pool(size)
    span = size - numel + 1
    i, step = (int(v) for v in torch.randint(0, span, (2,), generator=gen))
    j = (i + 1 + step % (span - 1)) % span  # any offset but i
    angle = float(torch.rand((), generator=gen)) * 6.283185307179586
    flat = out.view(-1) if out is not None else None
    values = torch.mul(pool[i : i + numel], math.cos(angle), out=flat)
    return values.add_(pool[j : j + numel], alpha=math.sin(angle))


def _reusable(old: Any, shape: list[int]) -> torch.Tensor | None:
    """``old`` when a randn of ``shape`` can be written into it: a plain, contiguous float32 CPU
    tensor of that shape (a previous call's input, recycled: a fresh 8 MiB tensor costs its page
    faults, several times the writing)."""
    if (
        type(old) is torch.Tensor
        and old.dtype == torch.float32
        and old.device.type == "cpu"
        and list(old.shape) == shape
        and old.is_contiguous()
        and old.storage_offset() == 0
        and not old.requires_grad
    ):
        return old
    return None


@input_kind("randn")
def _randn(spec: dict[str, Any], gen: torch.Generator) -> torch.Tensor:
    return _randn_into(spec, gen, None)


def _randn_into(spec: dict[str, Any], gen: torch.Generator, reuse: Any) -> torch.Tensor:
    shape = _shape(spec["randn"])
    numel = math.prod(shape)
    dtype = _dtype(spec, "float32")
    if MIX_MIN_NUMEL <= numel <= MIX_MAX_NUMEL:
        out = _reusable(reuse, shape) if dtype == torch.float32 else None
        values = mixed_normal(numel, gen, out).view(shape)
    else:
        values = torch.randn(shape, generator=gen, dtype=torch.float32)
    scale = float(spec.get("scale", 1.0))
    if scale != 1.0:
        values = values.mul_(scale)
    return values if dtype == torch.float32 else values.to(dtype)


@input_kind("cu_seqlens")
def _cu_seqlens(spec: dict[str, Any], gen: torch.Generator) -> torch.Tensor:
    """int64 offsets [0, ..., total] of ``count`` packed sequences, each at least 1 long."""
    count, total = _shape(spec["cu_seqlens"])
    if count < 1 or total < count:
        raise ValueError(f"bad cu_seqlens spec {spec!r}: need 1 <= count <= total")
    cuts = (torch.randperm(total - 1, generator=gen)[: count - 1] + 1).sort().values
    return torch.cat([torch.zeros(1, dtype=torch.int64), cuts, torch.tensor([total])])


@input_kind("lengths_mask")
def _lengths_mask(spec: dict[str, Any], gen: torch.Generator) -> torch.Tensor:
    batch, length = _shape(spec["lengths_mask"])
    side = spec.get("side", "right")
    if side not in ("right", "left") or length < 1:
        raise ValueError(f"bad lengths_mask spec {spec!r}")
    lengths = torch.randint(1, length + 1, (batch,), generator=gen)
    positions = torch.arange(length)
    if side == "right":
        return positions[None, :] < lengths[:, None]
    return positions[None, :] >= (length - lengths)[:, None]


def _transposed(value: torch.Tensor) -> torch.Tensor:
    """The same values with the last two dimensions swapped in memory (column-major)."""
    if value.dim() < 2:
        raise ValueError("layout 'transposed' needs at least two dimensions")
    return value.transpose(-1, -2).contiguous().transpose(-1, -2)


def _strided(value: torch.Tensor) -> torch.Tensor:
    """The same values at every other element of the last dimension, from storage offset 1."""
    if value.dim() < 1:
        raise ValueError("layout 'strided' needs at least one dimension")
    wide = torch.zeros((*value.shape[:-1], 2 * value.shape[-1] + 1), dtype=value.dtype)
    wide[..., 1::2] = value
    return wide[..., 1::2]


def _expanded(value: torch.Tensor) -> torch.Tensor:
    """Index 0 of the first dimension, broadcast along it (stride 0): the values change, every
    slice along dimension 0 is the first one."""
    if value.dim() < 1 or value.shape[0] == 0:
        raise ValueError("layout 'expanded' needs a non-empty first dimension")
    return value[:1].expand(value.shape)


LAYOUTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "transposed": _transposed,
    "strided": _strided,
    "expanded": _expanded,
}


def _build(spec: Any, gen: torch.Generator, reuse: Any = None) -> Any:
    if isinstance(spec, dict):
        kinds = [k for k in spec if k in INPUT_KINDS]
        if len(kinds) == 1:
            if kinds[0] == "randn" and "layout" not in spec:
                return _randn_into(spec, gen, reuse)
            value = INPUT_KINDS[kinds[0]](spec, gen)
            if "layout" in spec:
                if spec["layout"] not in LAYOUTS or not isinstance(value, torch.Tensor):
                    raise ValueError(f"unknown layout {spec['layout']!r} in input spec")
                value = LAYOUTS[spec["layout"]](value)
            return value
        return {k: _build(v, gen) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_build(v, gen) for v in spec]
    return spec


def _to_device(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return wire.same_layout(value, device)
    if isinstance(value, list):
        return [_to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def build_inputs(
    specs: list[Any], seed: int, device: str = "cpu", reuse: list[Any] | None = None
) -> list[Any]:
    """Positional arguments from benchmark input specs, deterministic in ``seed``: built on the
    CPU with one torch.Generator, then moved to ``device``. ``reuse``: the arguments an earlier
    build of the same specs gave, whose large float32 tensors may be overwritten (the runner's
    own, after their timed call; the values are the same either way)."""
    gen = torch.Generator().manual_seed(int(seed) & 0x7FFF_FFFF_FFFF_FFFF)
    old = reuse if reuse is not None and len(reuse) == len(specs) else [None] * len(specs)
    values = [_build(spec, gen, previous) for spec, previous in zip(specs, old, strict=True)]
    return values if device == "cpu" else [_to_device(v, device) for v in values]


def late_index(specs: list[Any], inputs: list[Any]) -> int | None:
    """The positional argument drawn only when a timed call starts: the one whose spec says
    ``"late": true``, else the smallest top-level tensor built from an input kind. Until then
    the submission cannot know its result, so it cannot compute it ahead, while the argument
    is ready prepared (on the untimed side). An author marks the argument the result depends
    on most when the smallest one may not matter (a left-padded mask: the last token is T-1)."""
    best: tuple[int, int] | None = None
    for i, (spec, value) in enumerate(zip(specs, inputs, strict=True)):
        kinds = [k for k in spec if k in INPUT_KINDS] if isinstance(spec, dict) else []
        if len(kinds) == 1 and isinstance(value, torch.Tensor) and spec.get("late") is True:
            return i
    for i, (spec, value) in enumerate(zip(specs, inputs, strict=True)):
        kinds = [k for k in spec if k in INPUT_KINDS] if isinstance(spec, dict) else []
        if len(kinds) == 1 and isinstance(value, torch.Tensor):
            size = value.numel() * value.element_size()
            if best is None or size < best[0]:
                best = (size, i)
    return None if best is None else best[1]


def late_input(
    specs: list[Any], inputs: list[Any], late_seed: int, device: str = "cpu"
) -> list[Any]:
    """``inputs`` (from :func:`build_inputs` on ``specs``) with the :func:`late_index`
    argument drawn again from ``late_seed``: what a time request's call gets."""
    index = late_index(specs, inputs)
    if index is None:
        return list(inputs)
    gen = torch.Generator().manual_seed(int(late_seed) & 0x7FFF_FFFF_FFFF_FFFF)
    value = _build(specs[index], gen)
    out = list(inputs)
    out[index] = value if device == "cpu" else _to_device(value, device)
    return out

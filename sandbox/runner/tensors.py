"""Tensor layouts and dtypes for the channel (wire.py): which views travel with their strides,
how a view is copied with its layout, the dtypes allowed on the wire.

Used on both sides of the channel (the runner's package is copied into the image), so it
depends on torch only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

MAX_STRIDE = 1 << 48  # elements; any larger stride or offset cannot address a real blob

DTYPES: dict[str, torch.dtype] = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
DTYPE_NAMES: dict[torch.dtype, str] = {v: k for k, v in DTYPES.items()}
NUMPY_DTYPES = frozenset(
    {
        "float64", "float32", "float16", "complex64", "complex128", "int64", "int32", "int16",
        "int8", "uint64", "uint32", "uint16", "uint8", "bool",
    }
)


def span(shape: list[int] | tuple[int, ...], strides: list[int] | tuple[int, ...]) -> int:
    """Elements of storage a view of ``shape`` and (non-negative) ``strides`` reaches from its
    first element: ``1 + sum((n - 1) * s)``, 0 for an empty view."""
    if any(n == 0 for n in shape):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))


def carried_layout(plain: torch.Tensor, expansion_left: int) -> tuple[list[int], int, int] | None:
    """``(strides, storage_offset, region_elements)`` when ``plain`` is a view worth carrying
    with its layout, else None (sent contiguous, as always).

    A view is carried when it is not contiguous from the start of its storage, its region holds
    at most twice its bytes plus 4 KiB (a row picked out of a large matrix travels as the row,
    not as the matrix), and what its repeated elements add fits ``expansion_left`` bytes."""
    numel = plain.numel()
    if numel == 0 or (plain.is_contiguous() and plain.storage_offset() == 0):
        return None
    strides = [int(s) for s in plain.stride()]
    if any(s < 0 for s in strides):
        return None
    storage_offset = int(plain.storage_offset())
    region = storage_offset + span(list(plain.shape), strides)
    size = plain.element_size()
    if region * size > 2 * numel * size + 4096:
        return None
    if max(0, numel - region) * size > expansion_left:
        return None
    return strides, storage_offset, region


def region_copy(plain: torch.Tensor, elements: int) -> torch.Tensor:
    """The first ``elements`` of ``plain``'s storage as a fresh contiguous 1-D tensor."""
    return torch.as_strided(plain, (elements,), (1,), 0).clone()


def restride(
    region: torch.Tensor, shape: list[int] | tuple[int, ...], strides: list[int] | tuple[int, ...],
    storage_offset: int,
) -> torch.Tensor:
    """A view of the 1-D ``region`` with this layout (the caller checked that it fits)."""
    return torch.as_strided(region, tuple(shape), tuple(strides), storage_offset)


def same_layout(tensor: torch.Tensor, device: str | torch.device | None = None) -> torch.Tensor:
    """A copy of ``tensor`` (detached, on ``device``) with the same shape, strides and storage
    offset: ``clone`` and ``.to`` make sliced and expanded views contiguous."""
    plain = torch.Tensor.detach(tensor)
    target = plain.device if device is None else torch.device(device)
    numel = plain.numel()
    strides = plain.stride()
    if numel == 0 or any(s < 0 for s in strides) or (
        plain.is_contiguous() and plain.storage_offset() == 0
    ):
        return torch.Tensor.clone(plain).to(target)
    storage_offset = int(plain.storage_offset())
    region = storage_offset + span(list(plain.shape), list(strides))
    base = region_copy(plain, region).to(target)
    return restride(base, list(plain.shape), list(strides), storage_offset)


def map_tree(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` with ``leaf`` applied to everything that is not a plain list, tuple or dict
    (subclasses are leaves: they are not containers the channel knows)."""
    if type(value) is list:
        return [map_tree(v, leaf) for v in value]
    if type(value) is tuple:
        return tuple(map_tree(v, leaf) for v in value)
    if type(value) is dict:
        return {k: map_tree(v, leaf) for k, v in value.items()}
    return leaf(value)

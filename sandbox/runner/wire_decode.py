"""Values across the grader/runner channel, decoded as hostile: the inverse of wire.py's
encoding (the node tags and blob layout are described there). Anything malformed raises
:class:`~sandbox.runner.wire.WireError`, never anything else; sizes, strides and offsets are
checked against the blob before a byte is read, and a decoded value never costs more memory
than ``MAX_EXPANSION_BYTES`` beyond the blob.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from sandbox.runner import tensors
from sandbox.runner.wire import (
    DTYPES,
    MAX_DEPTH,
    MAX_EXPANSION_BYTES,
    MAX_NODES,
    MAX_STRIDE,
    NUMPY_DTYPES,
    Unsupported,
    WireError,
    WireTensor,
    restride,
    span,
)

T = TypeVar("T")


def _decode_number(text: Any, parse: Callable[[str], T], longest: int) -> T:
    """``parse(text)`` of a number's text of at most ``longest`` characters, else a WireError."""
    if not isinstance(text, str) or len(text) > longest:
        raise WireError(f"bad {parse.__name__}")
    try:
        return parse(text)
    except ValueError:
        raise WireError(f"bad {parse.__name__}") from None


def _decode_float(text: Any) -> float:
    return _decode_number(text, float, 64)


class _Decoder:
    def __init__(self, blob: bytes, device: str | None, numpy: bool = False) -> None:
        self.blob = blob
        self.device = device
        self.numpy = numpy
        self.nodes = 0
        self.cursor = 0  # tensors lie in the blob in the order of the tree, never overlapping
        self.expansion_left = MAX_EXPANSION_BYTES

    def tensor(self, node: dict[str, Any]) -> WireTensor:
        dtype = DTYPES.get(node.get("dtype"))  # type: ignore[arg-type]
        shape = node.get("shape")
        offset, nbytes, cls = node.get("offset"), node.get("nbytes"), node.get("cls")
        if dtype is None:
            raise WireError(f"bad tensor dtype {node.get('dtype')!r}")
        if not isinstance(shape, list) or len(shape) > 16:
            raise WireError("bad tensor shape")
        if not all(type(d) is int and d >= 0 for d in shape):
            raise WireError("bad tensor shape")
        if type(offset) is not int or type(nbytes) is not int or not isinstance(cls, str):
            raise WireError("bad tensor descriptor")
        numel = math.prod(shape)
        itemsize = torch.empty((), dtype=dtype).element_size()
        layout = self.layout(node, shape, numel, itemsize)
        elements = numel if layout is None else layout[1] + span(shape, layout[0])
        if elements * itemsize != nbytes or offset < 0 or offset + nbytes > len(self.blob):
            raise WireError("tensor descriptor does not match the data")
        if offset < self.cursor:  # overlapping regions would decode a blob many times over
            raise WireError("tensor data out of place")
        self.cursor = offset + nbytes
        if numel:
            raw = bytearray(self.blob[offset : offset + nbytes])
            tensor = torch.frombuffer(raw, dtype=torch.uint8).view(dtype)
        else:
            tensor = torch.empty(shape, dtype=dtype)
        if self.device and self.device != "cpu":
            tensor = tensor.to(self.device)
        if layout is not None:
            tensor = restride(tensor, shape, layout[0], layout[1])
        elif numel:
            tensor = tensor.reshape(shape)
        return WireTensor(tensor, cls)

    def layout(
        self, node: dict[str, Any], shape: list[int], numel: int, itemsize: int
    ) -> tuple[list[int], int] | None:
        """``(strides, storage_offset)`` of a strided node, checked: one stride per dimension,
        each in ``[0, MAX_STRIDE)``, a non-empty view; the caller checks that the region they
        span is exactly the node's bytes. Elements repeated by small strides count against
        ``MAX_EXPANSION_BYTES`` for the whole value."""
        if "strides" not in node and "storage_offset" not in node:
            return None
        strides, storage_offset = node.get("strides"), node.get("storage_offset")
        if not isinstance(strides, list) or len(strides) != len(shape) or numel == 0:
            raise WireError("bad tensor strides")
        if not all(type(s) is int and 0 <= s < MAX_STRIDE for s in strides):
            raise WireError("bad tensor strides")
        if type(storage_offset) is not int or not 0 <= storage_offset < MAX_STRIDE:
            raise WireError("bad tensor storage offset")
        region = storage_offset + span(shape, strides)
        self.expansion_left -= max(0, numel - region) * itemsize
        if self.expansion_left < 0:
            raise WireError("strided tensors expand to too many bytes")
        return strides, storage_offset

    def numpy_value(self, tag: str, node: dict[str, Any]) -> Any:
        """An ``ndarray``/``npscalar``/``npdtype`` node, checked like a tensor's; numpy values
        only when this decoder wants them, else an Unsupported of the same name as before."""
        name = node.get("dtype") if tag != "npdtype" else node.get("v")
        if not isinstance(name, str) or name not in NUMPY_DTYPES:
            raise WireError(f"bad numpy dtype {str(name)[:40]!r}")
        if tag == "npdtype":
            if not self.numpy:
                return Unsupported("numpy.dtype")
            import numpy as np  # noqa: PLC0415 - only where numpy values travel

            return np.dtype(name)
        if tag == "npscalar":
            raw = node.get("v")
            if name == "bool":
                if type(raw) is not bool:
                    raise WireError("bad numpy scalar")
                value: Any = raw
            elif name.startswith("float"):
                value = _decode_float(raw)
            elif name.startswith(("int", "uint")):
                if not isinstance(raw, str) or len(raw) > 24:
                    raise WireError("bad numpy scalar")
                try:
                    value = int(raw)
                except ValueError:
                    raise WireError("bad numpy scalar") from None
            else:
                raise WireError("bad numpy scalar")
            if not self.numpy:
                return Unsupported(f"numpy.{name}")
            import numpy as np  # noqa: PLC0415

            try:
                return np.dtype(name).type(value)
            except (OverflowError, ValueError):
                raise WireError("bad numpy scalar") from None
        shape, offset, nbytes = node.get("shape"), node.get("offset"), node.get("nbytes")
        if not isinstance(shape, list) or len(shape) > 16:
            raise WireError("bad array shape")
        if not all(type(d) is int and d >= 0 for d in shape):
            raise WireError("bad array shape")
        if type(offset) is not int or type(nbytes) is not int:
            raise WireError("bad array descriptor")
        import numpy as np  # noqa: PLC0415

        dtype = np.dtype(name)
        numel = math.prod(shape)
        if numel * dtype.itemsize != nbytes or offset < 0 or offset + nbytes > len(self.blob):
            raise WireError("array descriptor does not match the data")
        if offset < self.cursor:
            raise WireError("array data out of place")
        self.cursor = offset + nbytes
        if not self.numpy:
            return Unsupported("numpy.ndarray")
        if not numel:
            return np.empty(shape, dtype=dtype)
        raw_bytes = bytearray(self.blob[offset : offset + nbytes])  # writable, owned
        return np.frombuffer(raw_bytes, dtype=dtype).reshape(shape)

    def node(self, node: Any, depth: int) -> Any:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise WireError("value nested too deeply or too large")
        if not isinstance(node, dict):
            raise WireError("node is not an object")
        tag = node.get("t")
        if tag == "none":
            return None
        if tag == "bool":
            if type(node.get("v")) is not bool:
                raise WireError("bad bool")
            return node["v"]
        if tag == "int":
            return _decode_number(node.get("v"), int, 4000)
        if tag == "float":
            return _decode_float(node.get("v"))
        if tag == "str":
            if not isinstance(node.get("v"), str):
                raise WireError("bad str")
            return node["v"]
        if tag in ("list", "tuple"):
            items = node.get("v")
            if not isinstance(items, list):
                raise WireError("bad sequence")
            values = [self.node(x, depth + 1) for x in items]
            if "cls" in node:
                return Unsupported(f"{tag} subclass {str(node['cls'])[:200]}")
            return tuple(values) if tag == "tuple" else values
        if tag == "dict":
            items = node.get("v")
            if not isinstance(items, list):
                raise WireError("bad dict")
            out: dict[str, Any] = {}
            for pair in items:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                    raise WireError("bad dict item")
                out[pair[0]] = self.node(pair[1], depth + 1)
            return out
        if tag == "tensor":
            return self.tensor(node)
        if tag == "dtype":
            name = node.get("v")
            if not isinstance(name, str):
                raise WireError("bad dtype")
            return DTYPES.get(name, Unsupported(f"dtype {name[:50]}"))
        if tag == "unsupported":
            return Unsupported(str(node.get("type"))[:200])
        if tag in ("ndarray", "npscalar", "npdtype"):
            return self.numpy_value(tag, node)
        raise WireError(f"unknown node tag {str(tag)[:40]!r}")


def decode(
    tree: Any,
    blob: bytes,
    *,
    device: str | None = None,
    keep_class: bool = False,
    numpy: bool = False,
) -> Any:
    """Inverse of :func:`sandbox.runner.wire.encode`. Tensors come back as plain tensors, or as :class:`WireTensor`
    (data + original class name) when ``keep_class`` is set, which is how the grader reads
    observations. numpy nodes become numpy values when ``numpy`` (the runner's and the practice
    grader's reading: a numpy argument of a practice test), else :class:`Unsupported`. Raises
    WireError on anything malformed. Its behaviour never depends on how it was imported."""
    want_numpy = numpy
    try:
        value = _Decoder(blob, device, want_numpy).node(tree, 0)
    except WireError:
        raise
    except RecursionError:
        raise WireError("value nested too deeply") from None
    except Exception as exc:  # hostile input must never escape as anything but WireError
        raise WireError(f"malformed value ({type(exc).__name__})") from None
    return value if keep_class else strip_classes(value)


def strip_classes(value: Any) -> Any:
    """Replace WireTensor nodes by their tensors."""
    return tensors.map_tree(value, lambda v: v.tensor if isinstance(v, WireTensor) else v)

"""Values across the grader/runner channel: encoded as a JSON tree and one blob, decoded as hostile.

Used by the trusted grader and by the runner inside the sandbox, so it depends on the standard
library, torch, framing and tensors only.

Encoding: a value pytree becomes a JSON tree of tagged nodes plus one blob of raw bytes that
holds every tensor's data; a tensor node carries ``{dtype, shape, offset, nbytes, cls}``. A
non-contiguous tensor (transposed, sliced, expanded) keeps its layout: its node adds
``strides`` and ``storage_offset`` (in elements) and its bytes are the storage region the view
spans, so a test can hand the student exactly the view it built (see :func:`_layout`). Tuples
and lists stay distinct; dict keys must be strings; floats travel as ``repr`` strings so NaN and
infinities survive exactly. Nothing is pickled. ``decode`` treats its input as hostile: every
descriptor is checked against the blob (tensors in order and apart, so nothing decodes
larger than the blob), the dtype against an allow-list, the depth is capped; strides must
address only the tensor's own bytes, and stride-0 views may expand the blob by at most
``MAX_EXPANSION_BYTES`` in all.

numpy values (for exercises written against numpy: sandbox/practice/proxies.py) travel too: an
``ndarray`` node (plain ``numpy.ndarray`` of an allowed dtype, native byte order, its bytes in
the blob like a tensor's, checked the same way), ``npscalar`` (``numpy.float32(1.5)``...) and
``npdtype``. They decode into numpy values where numpy is wanted (the runner; the practice grader
asks for it) and into :class:`Unsupported` elsewhere, so the tensor problems' comparison sees
exactly what it saw before numpy travelled.

The decoding (every check of a hostile value) is in wire_decode.py, the layouts in tensors.py,
the observed call in calls.py, keyed digests in digests.py.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import torch

from sandbox.runner import framing, tensors

# The layouts and dtypes live in tensors.py; callers know them as wire's too.
DTYPES, DTYPE_NAMES, NUMPY_DTYPES = tensors.DTYPES, tensors.DTYPE_NAMES, tensors.NUMPY_DTYPES
MAX_STRIDE, span, restride, same_layout = (
    tensors.MAX_STRIDE, tensors.span, tensors.restride, tensors.same_layout,
)

MAX_DEPTH = 64
MAX_NODES = 1_000_000
# What strided views (a stride 0 repeats an element) may add to the blob's size, in all, once
# decoded: a small blob must not decode into a tensor that the receiver cannot afford to read.
MAX_EXPANSION_BYTES = 64 * 1024 * 1024
class WireError(Exception):
    """A value cannot be encoded, or an encoded value is malformed."""


class Unsupported:
    """Decoded stand-in for a value of a type the wire does not carry (e.g. a numpy array)."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<unsupported {self.type_name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unsupported) and other.type_name == self.type_name

    def __hash__(self) -> int:
        return hash(self.type_name)


class WireTensor:
    """Decoded tensor plus the class name it had on the other side (to reject subclasses)."""

    __slots__ = ("tensor", "cls")

    def __init__(self, tensor: torch.Tensor, cls: str) -> None:
        self.tensor = tensor
        self.cls = cls

    def __repr__(self) -> str:
        return f"WireTensor({self.cls}, {DTYPE_NAMES.get(self.tensor.dtype)}, {list(self.tensor.shape)})"


# ---------------------------------------------------------------- encoding


def _type_name(value: object) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "")
    return f"{module}.{cls.__qualname__}" if module not in ("builtins", "") else cls.__qualname__


class Encoder:
    """Builds the tree; tensor bytes go to ``chunks``, or only into ``sink`` (a hash) when one
    is given, in the same order, without a copy."""

    def __init__(self, sink: Any = None) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.sink = sink
        self.expansion_left = MAX_EXPANSION_BYTES

    def tensor(self, value: torch.Tensor) -> dict[str, Any]:
        cls = _type_name(value)
        try:
            plain = torch.Tensor.detach(value)
            if type(plain) is not torch.Tensor:
                plain = torch.Tensor.as_subclass(plain, torch.Tensor)
            if plain.layout != torch.strided:
                return {"t": "unsupported", "type": f"{cls} of layout {plain.layout} (not dense)"}
            if plain.device.type == "meta":
                return {"t": "unsupported", "type": f"{cls} on the meta device (no values)"}
            plain = plain.resolve_conj().resolve_neg().cpu()
        except Exception as exc:  # a hostile subclass; tell the grader what it was
            return {"t": "unsupported", "type": f"{cls} ({type(exc).__name__})"}
        dtype = DTYPE_NAMES.get(plain.dtype)
        if dtype is None:
            return {"t": "unsupported", "type": f"tensor of {plain.dtype}"}
        layout = tensors.carried_layout(plain, self.expansion_left)
        if layout is not None:
            region = layout[2]
            self.expansion_left -= max(0, plain.numel() - region) * plain.element_size()
            flat = tensors.region_copy(plain, region)
        elif self.sink is not None:
            flat = plain.reshape(-1).contiguous()
        else:
            flat = plain.reshape(-1).clone()
        if self.sink is not None:
            size = flat.numel() * flat.element_size()
            if size:
                self.sink.update((ctypes.c_char * size).from_address(flat.data_ptr()))
            data = b""
        else:
            data = (
                ctypes.string_at(flat.data_ptr(), flat.numel() * flat.element_size())
                if flat.numel()
                else b""
            )
            size = len(data)
        node = {
            "t": "tensor",
            "cls": cls,
            "dtype": dtype,
            "shape": list(plain.shape),
            "offset": self.size,
            "nbytes": size,
            "device": str(value.device) if cls == "torch.Tensor" else "cpu",
        }
        if layout is not None:
            node["strides"], node["storage_offset"] = layout[0], layout[1]
        if self.sink is None:
            self.chunks.append(data)
        self.size += size
        return node

    def node(self, value: Any, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise WireError("value nested too deeply")
        if value is None:
            return {"t": "none"}
        kind = type(value)
        if kind is bool:
            return {"t": "bool", "v": value}
        if kind is int:
            return {"t": "int", "v": str(value)}
        if kind is float:
            return {"t": "float", "v": repr(value)}
        if kind is str:
            return {"t": "str", "v": value}
        if isinstance(value, torch.Tensor):
            return self.tensor(value)
        if kind in (list, tuple) or (
            isinstance(value, tuple | list) and not hasattr(value, "_fields")
        ):
            tag = "tuple" if isinstance(value, tuple) else "list"
            node: dict[str, Any] = {"t": tag, "v": [self.node(x, depth + 1) for x in list(value)]}
            if kind not in (list, tuple):
                node["cls"] = _type_name(value)
            return node
        if kind is dict:
            items = []
            for key, item in value.items():
                if type(key) is not str:
                    return {"t": "unsupported", "type": f"dict with {_type_name(key)} keys"}
                items.append([key, self.node(item, depth + 1)])
            return {"t": "dict", "v": items}
        if isinstance(value, torch.dtype):
            return {"t": "dtype", "v": DTYPE_NAMES.get(value, str(value))}
        numpy = sys.modules.get("numpy")
        if numpy is not None and str(getattr(kind, "__module__", "")).startswith("numpy"):
            return self.numpy_node(numpy, value)
        return {"t": "unsupported", "type": _type_name(value)}

    def numpy_node(self, np: Any, value: Any) -> dict[str, Any]:
        """A plain ndarray, a numpy scalar or a dtype; anything else of numpy is unsupported."""
        kind = type(value)
        if kind is np.dtype or isinstance(value, np.dtype):
            name = str(value.name)
            if name in NUMPY_DTYPES and value.isnative:
                return {"t": "npdtype", "v": name}
        elif kind is np.ndarray:
            name = str(value.dtype.name)
            if name in NUMPY_DTYPES and value.ndim <= 16:
                flat = np.ascontiguousarray(value)
                if not flat.dtype.isnative:
                    flat = flat.astype(flat.dtype.newbyteorder("="))
                data = flat.tobytes()
                if self.sink is not None:
                    self.sink.update(data)
                else:
                    self.chunks.append(data)
                node = {
                    "t": "ndarray",
                    "dtype": name,
                    "shape": [int(n) for n in value.shape],
                    "offset": self.size,
                    "nbytes": len(data),
                }
                self.size += len(data)
                return node
        elif isinstance(value, np.generic):
            name = str(value.dtype.name)
            if name == "bool":
                return {"t": "npscalar", "dtype": name, "v": bool(value)}
            if name.startswith(("int", "uint")):
                return {"t": "npscalar", "dtype": name, "v": str(int(value))}
            if name.startswith("float"):
                return {"t": "npscalar", "dtype": name, "v": repr(float(value))}
        return {"t": "unsupported", "type": _type_name(value)}


def encode(value: Any) -> tuple[dict[str, Any], bytes]:
    """(JSON-able tree, blob) for a value pytree; unknown types become ``unsupported`` nodes."""
    enc = Encoder()
    tree = enc.node(value, 0)
    return tree, b"".join(enc.chunks)


def frame(message: dict[str, Any], **values: Any) -> bytes:
    """One frame: ``message`` plus each keyword value encoded under the same key."""
    enc = Encoder()
    body = dict(message)
    for key, value in values.items():
        body[key] = enc.node(value, 0)
    return framing.encode_frame(body, b"".join(enc.chunks))

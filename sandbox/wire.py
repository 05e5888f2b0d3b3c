"""Values across the grader/runner channel, and the one way a function is called and observed.

Imported as ``sandbox.wire`` by the trusted grader and as the top-level module ``wire`` by the
runner inside the sandbox, so it depends on the standard library, torch and framing only.

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

numpy values (for exercises written against numpy: sandbox/practice_judge.py) travel too: an
``ndarray`` node (plain ``numpy.ndarray`` of an allowed dtype, native byte order, its bytes in
the blob like a tensor's, checked the same way), ``npscalar`` (``numpy.float32(1.5)``...) and
``npdtype``. They decode into numpy values where numpy is wanted (the runner; the practice grader
asks for it) and into :class:`Unsupported` elsewhere, so the tensor problems' comparison sees
exactly what it saw before numpy travelled.

``execute_call`` is used by the runner (student code) and by the grader (reference code), so
both sides observe a call with the same semantics.
"""

from __future__ import annotations

import builtins
import ctypes
import hashlib
import json
import math
import sys
import traceback
from collections.abc import Callable
from typing import Any

import torch

try:
    from sandbox import framing
except ImportError:  # inside the sandbox: a top-level module beside runner.py
    import framing  # type: ignore[no-redef]

MAX_DEPTH = 64
MAX_NODES = 1_000_000
# What strided views (a stride 0 repeats an element) may add to the blob's size, in all, once
# decoded: a small blob must not decode into a tensor that the receiver cannot afford to read.
MAX_EXPANSION_BYTES = 64 * 1024 * 1024
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


# ---------------------------------------------------------------- layouts


def span(shape: list[int] | tuple[int, ...], strides: list[int] | tuple[int, ...]) -> int:
    """Elements of storage a view of ``shape`` and (non-negative) ``strides`` reaches from its
    first element: ``1 + sum((n - 1) * s)``, 0 for an empty view."""
    if any(n == 0 for n in shape):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))


def _layout(plain: torch.Tensor, expansion_left: int) -> tuple[list[int], int, int] | None:
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


def _region(plain: torch.Tensor, elements: int) -> torch.Tensor:
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
    base = _region(plain, region).to(target)
    return restride(base, list(plain.shape), list(strides), storage_offset)


# ---------------------------------------------------------------- encoding


def _type_name(value: object) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "")
    return f"{module}.{cls.__qualname__}" if module not in ("builtins", "") else cls.__qualname__


class _Encoder:
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
        layout = _layout(plain, self.expansion_left)
        if layout is not None:
            region = layout[2]
            self.expansion_left -= max(0, plain.numel() - region) * plain.element_size()
            flat = _region(plain, region)
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
    enc = _Encoder()
    tree = enc.node(value, 0)
    return tree, b"".join(enc.chunks)


def _decode_float(text: Any) -> float:
    if not isinstance(text, str) or len(text) > 64:
        raise WireError("bad float")
    try:
        return float(text)
    except ValueError:
        raise WireError("bad float") from None


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
            text = node.get("v")
            if not isinstance(text, str) or len(text) > 4000:
                raise WireError("bad int")
            try:
                return int(text)
            except ValueError:
                raise WireError("bad int") from None
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
    """Inverse of :func:`encode`. Tensors come back as plain tensors, or as :class:`WireTensor`
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
    if isinstance(value, WireTensor):
        return value.tensor
    if type(value) is list:
        return [strip_classes(v) for v in value]
    if type(value) is tuple:
        return tuple(strip_classes(v) for v in value)
    if type(value) is dict:
        return {k: strip_classes(v) for k, v in value.items()}
    return value


def _keyed_hash(key: str) -> Any:
    if not isinstance(key, str) or len(key) > 128:
        raise WireError("bad digest key")
    try:
        return hashlib.sha256(bytes.fromhex(key))
    except ValueError:
        raise WireError("bad digest key") from None


def _tree_bytes(tree: Any) -> bytes:
    return json.dumps(tree, sort_keys=True, separators=(",", ":")).encode()


def digest_encoded(tree: Any, blob: bytes, key: str) -> str:
    """Hash of an encoded value (key, blob, then the tree in canonical JSON). A time reply
    carries :func:`digest` of the output it timed, under a key sent with that request; the
    output fetched later must hash the same, so its bytes were final when the call returned
    (work left to a thread afterwards cannot match)."""
    h = _keyed_hash(key)
    h.update(blob)
    h.update(_tree_bytes(tree))
    return h.hexdigest()


def digest(value: Any, key: str) -> str:
    """:func:`digest_encoded` of ``encode(value)``, hashing tensor memory without copying it."""
    h = _keyed_hash(key)
    enc = _Encoder(sink=h)
    tree = enc.node(value, 0)
    h.update(_tree_bytes(tree))
    return h.hexdigest()


def frame(message: dict[str, Any], **values: Any) -> bytes:
    """One frame: ``message`` plus each keyword value encoded under the same key."""
    enc = _Encoder()
    body = dict(message)
    for key, value in values.items():
        body[key] = enc.node(value, 0)
    return framing.encode_frame(body, b"".join(enc.chunks))


# ---------------------------------------------------------------- observing one call


def _clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return same_layout(value)  # a test's transposed or expanded input stays that way
    if type(value) is list:
        return [_clone(v) for v in value]
    if type(value) is tuple:
        return tuple(_clone(v) for v in value)
    if type(value) is dict:
        return {k: _clone(v) for k, v in value.items()}
    return value


# Captured at import, before any student code runs in the sandbox (a patched torch.equal
# would otherwise hide in-place modification; the grader never relies on this alone).
_equal = torch.equal


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    if a.dtype == torch.bool:
        return bool(_equal(a, b))
    a8 = a.detach().contiguous().reshape(-1).view(torch.uint8)
    b8 = b.detach().contiguous().reshape(-1).view(torch.uint8)
    return bool(_equal(a8, b8))


def _modified(before: Any, after: Any, path: str, found: list[str]) -> None:
    if isinstance(before, torch.Tensor):
        if not isinstance(after, torch.Tensor) or not _same_bits(before, after):
            found.append(path)
    elif type(before) in (list, tuple):
        if type(after) is not type(before) or len(after) != len(before):
            found.append(path)
            return
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            _modified(b, a, f"{path}[{i}]", found)
    elif type(before) is dict:
        if type(after) is not dict or set(after) != set(before):
            found.append(path)
            return
        for k in before:
            _modified(before[k], after[k], f"{path}[{k!r}]", found)


def trim_traceback(exc: BaseException, filename: str | None) -> str:
    """The traceback limited to frames in ``filename`` (the submission), with its line numbers."""
    frames = traceback.extract_tb(exc.__traceback__)
    if filename is not None:
        frames = traceback.StackSummary.from_list([f for f in frames if f.filename == filename])
    lines = []
    for f in frames:
        name = "submission.py" if filename is not None else f.filename
        lines.append(f'  File "{name}", line {f.lineno}, in {f.name}')
        if f.line:
            lines.append(f"    {f.line.strip()}")
    text = "Traceback (most recent call last):\n" if lines else ""
    text += "\n".join(lines) + ("\n" if lines else "")
    return text + "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _exception_name(cls: type) -> str:
    """A class's name, qualified by its module when it borrows the name of one of Python's own
    exceptions without being it (``class IndexError(Exception)`` is not an IndexError)."""
    name = cls.__name__
    own = getattr(builtins, name, None)
    if isinstance(own, type) and issubclass(own, BaseException) and own is not cls:
        return f"{cls.__module__}.{cls.__qualname__}"[:200]
    return name


def exception_observation(exc: BaseException, filename: str | None) -> dict[str, Any]:
    return {
        "kind": "raise",
        "type": _exception_name(type(exc)),
        "mro": [_exception_name(c) for c in type(exc).__mro__],
        "message": str(exc)[:2000],
        "traceback": trim_traceback(exc, filename)[-4000:],
    }


def execute_call(
    fn: Callable[..., Any],
    call_args: list[Any] | tuple[Any, ...],
    call_kwargs: dict[str, Any],
    grad_wrt: list[int] | tuple[int, ...] = (),
    grad_seed: int = 0,
    filename: str | None = None,
) -> dict[str, Any]:
    """Call ``fn`` on clones of the arguments and observe what happened.

    Returns ``{"kind": "return", "value", "inputs_modified": [paths], "grads": [...] | None}``
    or ``{"kind": "raise", "type", "mro", "message", "traceback"}``. With ``grad_wrt``, those
    positional tensor arguments get ``requires_grad``; the (tensor) result is backpropagated
    with a ``grad_output`` drawn from ``grad_seed``; ``grads`` lists each argument's gradient
    (None where none flowed). ``filename`` limits tracebacks to that file's frames.
    """
    originals = (_clone(list(call_args)), _clone(call_kwargs))
    args = _clone(list(call_args))
    kwargs = _clone(call_kwargs)
    for i in grad_wrt:
        if not (0 <= i < len(args) and isinstance(args[i], torch.Tensor)):
            raise ValueError(f"grad_wrt index {i} is not a tensor argument")
        args[i] = args[i].requires_grad_(True)
    try:
        result = fn(*args, **kwargs)
        grads: list[Any] | None = None
        if grad_wrt:
            if not isinstance(result, torch.Tensor) or not result.requires_grad:
                grads = [None for _ in grad_wrt]
            else:
                gen = torch.Generator().manual_seed(int(grad_seed) & 0x7FFF_FFFF_FFFF_FFFF)
                grad_out = torch.randn(tuple(result.shape), generator=gen, dtype=torch.float32)
                result.backward(grad_out.to(dtype=result.dtype, device=result.device))
                grads = [args[i].grad for i in grad_wrt]
    except BaseException as exc:  # noqa: B036 - SystemExit and the like are observations too
        if isinstance(exc, KeyboardInterrupt):
            raise
        return exception_observation(exc, filename)
    for i in grad_wrt:
        args[i] = args[i].detach()
    found: list[str] = []
    _modified(originals[0], args, "args", found)
    _modified(originals[1], kwargs, "kwargs", found)
    if isinstance(result, torch.Tensor) and type(result) is torch.Tensor:
        result = result.detach()
    return {"kind": "return", "value": result, "inputs_modified": found, "grads": grads}

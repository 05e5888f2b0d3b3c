"""Call a compiled CUDA submission's ``extern "C"`` launch function on torch tensors.

``call(library, "void solve(const float* x, float* y, int n)", [x, y, n])`` passes a tensor for
each pointer (contiguous, the pointer's dtype) and a Python number for each scalar, and returns
the outputs: ``{name: tensor}`` for every non-const pointer, written in place into the tensors
given. Outputs start as 0xFF bytes (NaN for floats), so an element the kernel never writes fails
the comparison; a pointer named in ``inout`` keeps its contents instead.

Mode "emu" (a library from build.compile(mode="emu")): the call runs in a child process with
AddressSanitizer preloaded, stopped after ``timeout_s`` (CallTimeout); every emulator report or
sanitizer report becomes a KernelError whose message names the kernel, and for an out-of-bounds
access the buffer and the index. Mode "nvcc": the library is loaded here and called on CUDA
tensors (the caller's process owns the time limit); a CUDA error becomes a KernelError.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from sandbox.cuda.proc import (
    PRINT_LIMIT_BYTES,
    file_limit,
    read_capped,
    run_limited,
    sanitizer_env,
)
from sandbox.cuda.reports import REPORT_EXIT, CallTimeout, KernelError, diagnose

CHILD = Path(__file__).resolve().parent / "_child.py"

# C type -> (ctypes name for a scalar, torch dtypes a pointer to it accepts)
_TYPES: dict[str, tuple[str, tuple[torch.dtype, ...]]] = {
    "float": ("c_float", (torch.float32,)),
    "double": ("c_double", (torch.float64,)),
    "int": ("c_int32", (torch.int32,)),
    "int32_t": ("c_int32", (torch.int32,)),
    "unsigned": ("c_uint32", (torch.int32,)),
    "unsigned int": ("c_uint32", (torch.int32,)),
    "uint32_t": ("c_uint32", (torch.int32,)),
    "long": ("c_int64", (torch.int64,)),
    "long long": ("c_int64", (torch.int64,)),
    "int64_t": ("c_int64", (torch.int64,)),
    "size_t": ("c_uint64", (torch.int64,)),
    "unsigned long": ("c_uint64", (torch.int64,)),
    "uint64_t": ("c_uint64", (torch.int64,)),
    "short": ("c_int16", (torch.int16,)),
    "int16_t": ("c_int16", (torch.int16,)),
    "char": ("c_int8", (torch.int8,)),
    "int8_t": ("c_int8", (torch.int8,)),
    "unsigned char": ("c_uint8", (torch.uint8, torch.bool)),
    "uint8_t": ("c_uint8", (torch.uint8, torch.bool)),
    "bool": ("c_bool", (torch.bool,)),
    "half": ("", (torch.float16,)),
    "__half": ("", (torch.float16,)),
    "__nv_bfloat16": ("", (torch.bfloat16,)),
}
_SIG = re.compile(r"^\s*(?:extern\s+\"C\"\s+)?void\s+([A-Za-z_]\w*)\s*\((.*)\)\s*;?\s*$", re.S)
_QUALS = {"__restrict__", "__restrict", "restrict"}


class SignatureError(ValueError):
    """The signature, or the arguments given for it, cannot be used; the message says why."""


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str  # the C type without const and *
    pointer: bool
    const: bool


@dataclass(frozen=True)
class Signature:
    function: str
    params: tuple[Param, ...]

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.pointer and not p.const)


def parse_signature(text: str) -> Signature:
    """``void solve(const float* x, float* y, int n)`` -> Signature (SignatureError if unusable)."""
    m = _SIG.match(text)
    if not m:
        raise SignatureError(f"a launch signature looks like 'void solve(const float* x, int n)', "
                             f"not {text!r}")
    params: list[Param] = []
    body = m.group(2).strip()
    for raw in ([] if body in ("", "void") else body.split(",")):
        tokens = [t for t in raw.replace("*", " * ").split() if t not in _QUALS]
        const = bool(tokens) and tokens[0] == "const"
        stars = tokens.count("*")
        words = [t for t in tokens if t not in ("const", "*")]
        if len(words) < 2 or stars > 1 or not re.fullmatch(r"[A-Za-z_]\w*", words[-1]):
            raise SignatureError(f"cannot read the parameter {raw.strip()!r} of {m.group(1)} "
                                 "(a type and a name, e.g. 'const float* x' or 'int n')")
        name, ctype = words[-1], " ".join(words[:-1])
        if ctype not in _TYPES:
            raise SignatureError(f"parameter {name} has type {ctype!r}; the types a launch "
                                 f"function may take are {', '.join(sorted(_TYPES))}")
        if not stars and not _TYPES[ctype][0]:
            raise SignatureError(f"parameter {name}: {ctype} can only be passed by pointer")
        if any(p.name == name for p in params):
            raise SignatureError(f"two parameters are named {name}")
        params.append(Param(name, ctype, stars == 1, const and stars == 1))
    return Signature(m.group(1), tuple(params))


def _bind(sig: Signature, args: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    if isinstance(args, Mapping):
        missing = [p.name for p in sig.params if p.name not in args]
        extra = sorted(set(args) - {p.name for p in sig.params})
        if missing or extra:
            raise SignatureError(f"{sig.function} takes {[p.name for p in sig.params]}; missing "
                                 f"{missing}, unknown {extra}")
        values = [args[p.name] for p in sig.params]
    else:
        values = list(args)
        if len(values) != len(sig.params):
            raise SignatureError(f"{sig.function} takes {len(sig.params)} arguments, "
                                 f"got {len(values)}")
    for p, v in zip(sig.params, values, strict=True):
        if p.pointer:
            if not isinstance(v, torch.Tensor):
                raise SignatureError(f"{p.name} is a pointer: pass a tensor, not {type(v).__name__}")
            if v.dtype not in _TYPES[p.ctype][1]:
                raise SignatureError(f"{p.name} is {p.ctype}*: its tensor must be "
                                     f"{_TYPES[p.ctype][1][0]}, not {v.dtype}")
            if not v.is_contiguous():
                raise SignatureError(f"{p.name} must be a contiguous tensor (call .contiguous())")
        elif isinstance(v, bool) or not isinstance(v, int | float):
            raise SignatureError(f"{p.name} is {p.ctype}: pass a number, not {type(v).__name__}")
        elif isinstance(v, float) and p.ctype not in ("float", "double"):
            raise SignatureError(f"{p.name} is {p.ctype}: pass an int, not a float")
        elif isinstance(v, int) and _TYPES[p.ctype][0] in ("c_int32", "c_uint32"):
            lo, hi = (-(2**31), 2**31 - 1) if p.ctype in ("int", "int32_t") else (0, 2**32 - 1)
            if not lo <= v <= hi:
                raise SignatureError(f"{p.name} = {v} does not fit in {p.ctype}")
    return values


def _raw(t: torch.Tensor) -> bytes:
    return t.detach().reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""


def _run_child(spec_path: Path, workdir: Path, timeout_s: float, cxx: str,
               output_limit_bytes: int, out_bytes: int) -> tuple[int | None, str]:
    err = workdir / "call.stderr"
    status = run_limited([sys.executable, "-I", str(CHILD), str(spec_path)], workdir, timeout_s,
                         stdout=workdir / "call.stdout", stderr=err,
                         env=sanitizer_env(preload_cxx=cxx),
                         preexec=file_limit(out_bytes + PRINT_LIMIT_BYTES))
    return status, read_capped(err, output_limit_bytes)


def call(
    library: str | os.PathLike[str],
    signature: str | Signature,
    args: Sequence[Any] | Mapping[str, Any],
    *,
    mode: str = "emu",
    timeout_s: float = 30.0,
    inout: Collection[str] = (),
    workdir: str | os.PathLike[str] | None = None,
    output_limit_bytes: int = 256 * 1024,
    cxx: str = "g++",
) -> dict[str, torch.Tensor]:
    """Call the launch function; return {name: tensor} of its outputs (see the module doc)."""
    sig = signature if isinstance(signature, Signature) else parse_signature(signature)
    values = _bind(sig, args)
    unknown = set(inout) - set(sig.outputs)
    if unknown:
        raise SignatureError(f"inout names {sorted(unknown)} that are not non-const pointers")
    if not Path(library).is_file():
        raise FileNotFoundError(f"no library at {library}: compile the submission first")
    if mode == "nvcc":
        return _call_here(Path(library), sig, values, inout)
    if mode != "emu":
        raise ValueError(f"mode must be 'emu' or 'nvcc', not {mode!r}")
    for p, v in zip(sig.params, values, strict=True):
        if p.pointer and v.device.type != "cpu":
            raise SignatureError(f"{p.name} must be a CPU tensor for the emulation")
    with tempfile.TemporaryDirectory(prefix="tj_call_", dir=workdir) as tmp:
        wd = Path(tmp)
        blob, params = bytearray(), []
        for p, v in zip(sig.params, values, strict=True):
            if not p.pointer:
                params.append({"name": p.name, "kind": _TYPES[p.ctype][0], "value": v})
                continue
            fill = "copy" if p.const or p.name in inout else "nan"
            params.append({"name": p.name, "kind": "ptr", "nbytes": v.numel() * v.element_size(),
                           "elem": v.element_size(), "offset": len(blob), "fill": fill,
                           "out": not p.const})
            if fill == "copy":
                blob += _raw(v)
        (wd / "in.bin").write_bytes(bytes(blob))
        spec = {"library": str(Path(library).resolve()), "function": sig.function,
                "input": str(wd / "in.bin"), "output": str(wd / "out.bin"), "params": params}
        (wd / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        out_bytes = sum(p["nbytes"] for p in params if p["kind"] == "ptr" and p["out"])
        status, stderr = _run_child(wd / "spec.json", wd, timeout_s, cxx, output_limit_bytes,
                                    out_bytes)
        if status is None:
            raise CallTimeout("timeout", f"{sig.function} ran longer than {timeout_s:g} s and was "
                              "stopped (an endless loop, or a barrier loop that never ends?)")
        if status != 0:
            raise diagnose(stderr, status, function=sig.function)
        out_file = wd / "out.bin"
        data = out_file.read_bytes() if out_file.is_file() else b""
        if len(data) != out_bytes:
            raise KernelError("crash", f"{sig.function} ended the process without returning "
                              "(exit() or abort() in the submission?)")
    outputs: dict[str, torch.Tensor] = {}
    offset = 0
    for p, v in zip(sig.params, values, strict=True):
        if p.pointer and not p.const:
            n = v.numel() * v.element_size()
            if n:
                chunk = torch.frombuffer(bytearray(data[offset : offset + n]), dtype=torch.uint8)
                v.copy_(chunk.view(v.dtype).view(v.shape))
            offset += n
            outputs[p.name] = v
    return outputs


def _call_here(library: Path, sig: Signature, values: list[Any],
               inout: Collection[str]) -> dict[str, torch.Tensor]:
    """nvcc mode: load the library in this process and call it on CUDA tensors."""
    argv: list[Any] = []
    types: list[Any] = []
    for p, v in zip(sig.params, values, strict=True):
        if p.pointer:
            if v.device.type != "cuda":
                raise SignatureError(f"{p.name} must be a CUDA tensor for a GPU library")
            if not p.const and p.name not in inout and v.numel():
                v.view(torch.uint8).fill_(0xFF)
            argv.append(ctypes.c_void_p(v.data_ptr()))
            types.append(ctypes.c_void_p)
        else:
            ctype = getattr(ctypes, _TYPES[p.ctype][0])
            argv.append(ctype(v))
            types.append(ctype)
    try:
        fn = getattr(ctypes.CDLL(str(library)), sig.function)
    except (OSError, AttributeError) as e:
        raise KernelError("load", f"cannot load {sig.function} from the library: {e} "
                          "(is it declared extern \"C\"?)") from None
    fn.argtypes = types
    fn.restype = None
    fn(*argv)
    try:
        torch.cuda.synchronize()
    except RuntimeError as e:
        raise KernelError("cuda error", f"{sig.function} failed on the GPU: {e}") from None
    return {p.name: v for p, v in zip(sig.params, values, strict=True)
            if p.pointer and not p.const}


__all__ = ["REPORT_EXIT", "CallTimeout", "KernelError", "Param", "Signature", "SignatureError",
           "call", "parse_signature"]

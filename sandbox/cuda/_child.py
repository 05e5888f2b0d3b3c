"""The process that calls an emulated kernel library (run by call.py; stdlib only, no torch).

It runs with AddressSanitizer preloaded. Every pointer argument is its own exact-size malloc, so a
kernel that steps one element past a buffer hits ASan's redzone; before the call it prints each
buffer's address (``TJ-CUDA-BUFFER name address bytes element_bytes``) so that the caller can turn
an ASan report into "y[1024]". Outputs are filled with 0xFF bytes (NaN for floats) first.

Usage: python _child.py spec.json. The spec's keys: library, function, input, output, params
(each: name, kind "ptr" or a ctypes type name, and for pointers nbytes, elem, offset, fill, out;
for scalars value).
"""

import ctypes
import json
import signal
import sys


def main() -> None:
    # Python ignores SIGXFSZ; the caller's file-size limit must stop a kernel that prints forever.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    with open(spec["input"], "rb") as f:
        data = f.read()
    try:
        lib = ctypes.CDLL(spec["library"])
    except OSError as e:
        sys.stderr.write(f"TJ-CUDA load error: the library does not load: {e}\n")
        sys.exit(86)
    try:
        fn = getattr(lib, spec["function"])
    except AttributeError:
        sys.stderr.write(f"TJ-CUDA missing function: the library has no function "
                         f"{spec['function']}; define it with extern \"C\" and the stated signature\n")
        sys.exit(86)
    argv: list = []
    types: list = []
    outs = []
    for p in spec["params"]:
        if p["kind"] == "ptr":
            n = p["nbytes"]
            ptr = libc.malloc(n)
            if not ptr and n:
                sys.stderr.write(f"TJ-CUDA out of memory: cannot allocate {n} bytes for {p['name']}\n")
                sys.exit(86)
            if p["fill"] == "copy":
                ctypes.memmove(ptr, data[p["offset"] : p["offset"] + n], n)
            else:
                ctypes.memset(ptr, 0xFF, n)
            sys.stderr.write(f"TJ-CUDA-BUFFER {p['name']} {ptr or 0:#x} {n} {p['elem']}\n")
            argv.append(ctypes.c_void_p(ptr))
            types.append(ctypes.c_void_p)
            if p["out"]:
                outs.append((ptr, n))
        else:
            ctype = getattr(ctypes, p["kind"])
            argv.append(ctype(p["value"]))
            types.append(ctype)
    fn.argtypes = types
    fn.restype = None
    sys.stderr.flush()
    sys.stdout.flush()
    fn(*argv)
    libc.fflush(None)  # the kernel's printf goes through C's stdio buffer
    with open(spec["output"], "wb") as f:
        for ptr, n in outs:
            f.write(ctypes.string_at(ptr, n) if n else b"")


if __name__ == "__main__":
    main()

"""Reference solution of problem 71: integer operations on the float32 bits."""

from kernels.quant import to_bfloat16

__all__ = ["to_bfloat16"]

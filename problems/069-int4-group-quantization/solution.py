"""Reference solution of problem 69: the kernels package's INT4 format."""

from kernels.quant import dequantize_int4, pack_int4, quantize_int4, unpack_int4

__all__ = ["quantize_int4", "pack_int4", "unpack_int4", "dequantize_int4"]

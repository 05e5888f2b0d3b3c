"""Reference solution of problem 70: dequantise to float32, one float32 product, round once."""

from kernels.quant import w4a16_gemv

__all__ = ["w4a16_gemv"]

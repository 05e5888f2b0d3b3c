"""Reference solution of problem 63: the backward formulas, written out (no autograd)."""

from kernels.attention import attention_backward

__all__ = ["attention_backward"]

"""Reference solution of problem 66: the backward formulas, written out (no autograd)."""

from kernels.norms import layer_norm_backward

__all__ = ["layer_norm_backward"]

"""Reference solution of problem 80 (the grader's oracle, plain torch: it needs no Triton)."""

from kernels.norms import rms_norm

__all__ = ["rms_norm"]

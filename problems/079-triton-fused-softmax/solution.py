"""Reference solution of problem 79 (the grader's oracle, plain torch: it needs no Triton)."""

from kernels.softmax import softmax_rows as softmax

__all__ = ["softmax"]

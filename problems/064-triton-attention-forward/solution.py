"""Reference solution of problem 64 (the grader's oracle, plain torch: it needs no Triton)."""

from kernels.attention import attention as attention_forward

__all__ = ["attention_forward"]

"""Reference of problem 88 (the grader's oracle, plain torch in float64)."""

from kernels.cuda_chapter import causal_attention

__all__ = ["causal_attention"]

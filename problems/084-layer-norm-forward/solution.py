"""Reference solution of problem 84 (the grader's oracle, plain torch)."""

from kernels.cuda_chapter import layer_norm

__all__ = ["layer_norm"]

"""Reference solution of problem 81 (the grader's oracle, plain torch)."""

from kernels.cuda_chapter import axpby

__all__ = ["axpby"]

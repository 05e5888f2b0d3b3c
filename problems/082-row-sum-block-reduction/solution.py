"""Reference solution of problem 82 (the grader's oracle, plain torch)."""

from kernels.cuda_chapter import row_sum

__all__ = ["row_sum"]

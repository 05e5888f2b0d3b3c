"""Reference of problem 87 (the grader's oracle, plain torch: torch.argmax takes the first
maximum)."""

from kernels.cuda_chapter import row_argmax

__all__ = ["row_argmax"]

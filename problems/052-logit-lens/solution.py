"""Reference solution of problem 52: float32 RMSNorm, tied head, max and 1 / sum exp."""

from kernels.logit_lens import logit_lens

__all__ = ["logit_lens"]

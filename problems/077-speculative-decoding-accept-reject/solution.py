"""Reference solution of problem 77: the kernels package's accept/reject step."""

from kernels.speculative import acceptance_probs, residual_probs, speculative_step

__all__ = ["acceptance_probs", "residual_probs", "speculative_step"]

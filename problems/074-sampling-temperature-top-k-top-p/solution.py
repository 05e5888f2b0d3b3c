"""Reference solution of problem 74: the kernels package's sampler."""

from kernels.sampling import sample, sampling_probs

__all__ = ["sampling_probs", "sample"]

"""Reference solution of problem 55: closed-form counts in Python ints."""

from kernels.param_count import count_parameters, embedding_share

__all__ = ["count_parameters", "embedding_share"]

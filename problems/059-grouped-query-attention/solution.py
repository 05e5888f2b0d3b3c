"""Reference solution of problem 59: query heads reshaped into groups, K and V broadcast."""

from kernels.attention import gqa_attention

__all__ = ["gqa_attention"]

"""Reference solution of problem 75: the kernels package's expert-parallel bookkeeping."""

from kernels.moe_parallel import a2a_counts, a2a_offsets, send_order

__all__ = ["a2a_counts", "a2a_offsets", "send_order"]

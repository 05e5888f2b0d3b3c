"""Reference solution of problem 73: the kernels package's slot assignment, dispatch and combine."""

from kernels.moe import assign_slots, moe_combine, moe_dispatch

__all__ = ["assign_slots", "moe_dispatch", "moe_combine"]

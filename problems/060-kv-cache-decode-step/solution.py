"""Reference solution of problem 60: scatter the new entries, then attend over valid slots."""

from kernels.attention import decode_step

__all__ = ["decode_step"]

"""Reference solution of problem 61: angles in float64, rotation in float32."""

from kernels.attention import apply_rope

__all__ = ["apply_rope"]

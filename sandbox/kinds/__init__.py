"""The problem kinds (sandbox/judging.py's strategies); importing this registers them."""

from sandbox.kinds import practice, tensor

__all__ = ["practice", "tensor"]

"""The problem kinds (sandbox/grader/judging.py's strategies); importing this registers them. The
kind "scratch" is a mode of every problem (Mode.SCRATCH), never a package's own kind."""

from sandbox.grader.kinds import practice, scratch, tensor

__all__ = ["practice", "scratch", "tensor"]

"""Runs untrusted code and judges it. Framework-free: never imports Django.

Host side (backends/) never imports torch; the trusted grader (grader.py) does, in the
worker's own process; the container side (runner.py, wire.py, tensors.py, calls.py,
digests.py, inputs.py, framing.py) is copied into the sandbox image.
"""

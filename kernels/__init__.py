"""Reference kernels: the oracles problem packages call, and the speed baselines students race.

Pure PyTorch, framework-free: this package is imported by the trusted grader (through each
problem's ``solution.py``) and never copied into a sandbox image. A baseline named by a
problem's ``[benchmark]`` (``"kernels.<module>:<function>"``) reaches a sandbox of its own as
source: the grader inlines the module (sandbox/problem.py, ``inline_kernels``). So each module
is self-contained: it imports nothing but the standard library, torch (and triton), never
another kernels module.
"""

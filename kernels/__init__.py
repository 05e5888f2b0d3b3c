"""Reference kernels: the oracles problem packages call, and the speed baselines students race.

Pure PyTorch, framework-free: this package is imported by the trusted grader (through each
problem's ``solution.py``) and copied into the sandbox image, where the runner imports the
baseline named by a problem's ``[benchmark]`` (``"kernels.<module>:<function>"``). So it
imports nothing but the standard library and torch.
"""

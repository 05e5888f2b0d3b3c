"""CUDA C++ submissions: compiled with nvcc for a GPU, or checked on a CPU by emulating CUDA's
execution model (tj_cuda.h; see docs/cuda.md). Runs inside the student's sandbox: no Django, no
grader code; torch only in call.py.

    from sandbox.cuda.build import compile, CompileError
    from sandbox.cuda.call import call, KernelError, CallTimeout, SignatureError
"""

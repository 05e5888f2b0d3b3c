"""CUDA C++ submissions: compiled with nvcc for a GPU, or checked on a CPU by emulating CUDA's
execution model (tj_cuda.h; see docs/cuda.md). Runs inside the student's sandbox: no Django, no
grader code; torch only in call.py.

    from sandbox.cuda.build import compile, CompileError           # source -> library / program
    from sandbox.cuda.call import call, parse_signature, SignatureError
    from sandbox.cuda.reports import KernelError, CallTimeout      # also exported by call
    from sandbox.cuda.program import run_program, ProgramRun, Case  # CASE-line harnesses
    from sandbox.cuda.translate import translate, TranslateError   # the rewrite alone
"""

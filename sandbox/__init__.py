"""Runs untrusted code and judges it. Framework-free: never imports Django.

Folders by where the code runs, each importing only what is below it (tests/sandbox/
test_layers.py reads it from the import graph):

    host/ launcher   confined.py, relay_service.py, phases.py: the worker starts the confined
                     grader and serves its sandbox requests (holds the keys)
    grader/          the trusted grader: judging loop, kinds, session, package, compare,
    bench/ practice/ feedback, hints, check; benchmarks; the practice format (torch; the
                     confined grader's process.py runs it where authors' code may run)
    host/backends/   the Sandbox interface and its implementations (local, docker, kept)
    runner/          inside the student's sandbox: the generic runner and its protocol,
                     framing and codec; all the sandbox image holds
    cuda/            inside the sandbox too, below the runner: a CUDA C++ submission's compile
                     (nvcc, or g++ for the CPU emulation) and calls (runner/cuda_load.py)

The package's faces: ``python -m sandbox judge`` (__main__.py, the offline command line) and
problem.py (``Call`` and ``Case``, what every package's tests.py imports). The backends never
import torch (the local fork server, a process of its own, imports the runner's).
"""

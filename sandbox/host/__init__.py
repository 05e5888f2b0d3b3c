"""The worker host's side: what starts sandboxes and holds the keys (no torch, no Django).

backends/ is the Sandbox and Backend interface (base.py) and its implementations: local (a
subprocess, forked by the zygote of forkserver.py), docker (a container per sandbox, a warm pool,
CPU sets and cgroup CPU time, the GPU lock), kept (a trusted sandbox kept between judgings).
confined.py is the launcher of the confined grader (sandbox/grader/process.py), relay_service.py
serves that grader's sandbox requests within bounds, phases.py times a judging's phases.

The grader drives sandboxes through backends/base.py only; the launcher (confined.py,
relay_service.py) sits above the grader, whose job and result types it carries.
"""

"""The trusted grader's entry point: ``judge`` one submission of one problem.

Every problem kind goes through one loop (sandbox/judging.py); the kinds are strategies in
sandbox/kinds/ (``tensor``: a package's cases against its reference, benchmarked on Submit;
``practice``: a practice folder's test functions). With the docker backend the site runs this
in the confined grader process (sandbox/grader_process.py), where authors' code may run.
"""

import sandbox.kinds  # noqa: F401 - registers the built-in kinds
from sandbox.judging import judge
from sandbox.kinds.tensor import case_seed, grader_environment

__all__ = ["case_seed", "grader_environment", "judge"]

"""The trusted grader's entry point: ``judge`` one submission of one problem.

Every problem kind goes through one loop (sandbox/grader/judging.py); the kinds are strategies in
sandbox/grader/kinds/ (``tensor``: a package's cases against its reference, benchmarked on Submit;
``practice``: a practice folder's test functions). With the docker backend the site runs this
in the confined grader process (sandbox/grader/process.py), where authors' code may run.
"""

import sandbox.grader.kinds  # noqa: F401 - registers the built-in kinds
from sandbox.grader.judging import judge
from sandbox.grader.kinds.tensor import case_seed, grader_environment

__all__ = ["case_seed", "grader_environment", "judge"]

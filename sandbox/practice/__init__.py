"""The practice format: exercises of the handbook ``AnranS/ai-infra-handbooks`` judged here.

- folder.py: a practice folder read (problem.md, starter, solution, test.py) and written as a
  package of the kind ``practice``; scan.py: the static scan of its test.py; package.py: such a
  package read back (settings, refused tests, public examples, notes); book.py: a book of folders
  in the handbook's order. All torch-free: the web process imports them.
- proxies.py: in the trusted grader, the ``solution`` module a test.py imports, whose calls cross
  the channel to the runner (the harness it calls there is sandbox/runner/practice_shim.py);
  student_errors.py: what the student's exceptions and assertion failures become;
  checker.py: the ``checker`` module a test.py imports (our own helpers).
- package_check.py: the package check of a practice problem (its solution AC, its starter not).
The kind itself (the judging loop's strategy) is sandbox/grader/kinds/practice.py.
"""


class PracticeError(Exception):
    """A practice folder that cannot be imported; the message names the file and the fault."""

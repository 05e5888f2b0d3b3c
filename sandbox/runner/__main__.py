"""``python -I -m sandbox.runner``: the generic runner's process (sandbox/runner/server.py)."""

import sys

from sandbox.runner.server import main

sys.exit(main())

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from judge_cast import (  # noqa: E402,F401  (fixtures)
    alice,
    bob,
    charlie,
    enqueued,
    fake_engine,
    inline_judging,
    problem,
)

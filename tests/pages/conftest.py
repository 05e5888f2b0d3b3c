

from judge_cast import (  # noqa: E402,F401  (fixtures)
    alice,
    bob,
    charlie,
    enqueued,
    fake_engine,
    inline_judging,
    problem,
)

"""What a judging task did with a submission (judge_site/submissions/services.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Outcome(enum.StrEnum):
    """What ``submission_judge`` did with a submission."""

    JUDGED = "judged"  # the verdict is written
    SKIPPED = "skipped"  # not queued, claimed by someone else, or the claim was lost
    BUSY = "busy"  # left queued: another judging of this user runs and hands off to it
    RETRY = "retry"  # an engine fault: sent back to the queue with a countdown
    FAILED = "failed"  # IE written: retrying cannot help, or no attempts left


class Claim(enum.Enum):
    """Why ``_claim`` did not claim a submission (it returns the attempt token when it did)."""

    BUSY = "busy"  # the user already has a running judging
    TAKEN = "taken"  # someone else claimed (or finished) it


@dataclass(frozen=True)
class JudgeOutcome:
    """What ``submission_judge`` did, for the task and for tests."""

    action: Outcome
    detail: str = ""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_cast import alice, bob, charlie, problem  # noqa: E402,F401  (fixtures)

"""A burst of Runs of problem 48, timed from the database (docs/benchmarks.md, "One host or
two"). Feed it to the main host's web: docker compose exec -T web python3 manage.py shell <this
Environment: BURST (default 20). Prints throughput and latencies, and which hosts judged."""

import os
import statistics
import time
from collections import Counter
from pathlib import Path

from django.contrib.auth import get_user_model

from judge_site.catalog.models import Problem
from judge_site.submissions.models import Submission
from judge_site.submissions.services import submission_create

count = int(os.environ.get("BURST", "20"))
problem = Problem.objects.get(number=48)
code = Path(sorted(Path("/app/problems").glob("048-*/solutions/AC/*.py"))[0]).read_text()
ids = []
for i in range(count):
    user, _ = get_user_model().objects.get_or_create(username=f"bench-hosts-{i}")
    ids.append(submission_create(user, problem, code, "run").pk)
deadline = time.monotonic() + 900
while time.monotonic() < deadline:
    if not Submission.objects.filter(pk__in=ids).exclude(status="done").exists():
        break
    time.sleep(0.5)
subs = list(Submission.objects.filter(pk__in=ids))
first = min(s.created_at for s in subs)
last = max(s.finished_at for s in subs)
wall_s = (last - first).total_seconds()
latency = sorted((s.finished_at - s.created_at).total_seconds() for s in subs)
print(
    f"BURST {count} Runs: verdicts {dict(Counter(s.verdict for s in subs))}, "
    f"wall {wall_s:.1f} s, {count / wall_s:.3f} judgings/s, latency median "
    f"{statistics.median(latency):.1f} s, p90 {latency[int(0.9 * (count - 1))]:.1f} s, "
    f"hosts {dict(Counter(s.environment.get('host', '?') for s in subs))}"
)

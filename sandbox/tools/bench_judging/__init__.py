"""Throughput, latency and timing precision of a running judge (figures, not a test).

    scripts/bench_judging --url http://127.0.0.1:8123 [--token KEY] [--users 8]
                          [--only burst,latency,cv,load,order,sweep] [--json out.json]
                          [--svg-dir docs/benchmarks]

Brings nothing up: it talks to a running site through its JSON API (POST /api/v1/submissions,
GET /api/v1/submissions/<id>, header ``Authorization: Token <key>``), from this machine only
(the URL must be a loopback address). URL and token default to JUDGE_URL / JUDGE_TOKEN.

Users. One user has at most one judging running (the others wait) and at most
JUDGE_RATE_LIMIT_PER_MINUTE judgings a minute (10 by default), so 8 clients need 8 users. The
tokens used are ``--token`` (first), then those kept in ``--tokens-file`` (one per line), then
accounts the script signs up through the site's sign-up page (bench-<random>-<i>; their tokens
are appended to the file for the next run, since a site caps sign-ups per address). Where
sign-up is closed or capped, staff make the accounts and put their keys in the file
(``manage.py create_api_token USER``). Every client keeps under the rate limit
(``--rate-limit``, the site's value), waiting when it would pass it, so the stack under test
keeps its default settings.

What it runs (each figure printed with its target and PASS/FAIL):
  burst    60 Runs of problem 48 (a correct file) from 8 clients at once: judgings/min, none
           lost; latency p50/p95 under the burst; the CPU-seconds each judging cost this
           machine, by part (sandboxes, each container of the stack, the Docker engine).
  latency  one client, 20 Runs one after another, --think-s (3 s) apart like a student reading
           each verdict: submit -> verdict p50/p95 (polled every 20 ms). Back-to-back
           judgings are the burst's case.
  cv       the same correct solution submitted 10 times, one at a time, --think-s apart:
           speedup CV, and the Submit latency p50 (polled every 0.2 s: finer polling loads
           the web server beside the timing).
Clients of the burst, load and sweep poll as the problem page does (after 100 ms, then 1.5x
longer each time, up to every second).
  load     the same, 4 clients submitting 5 times each at once: speedup CV and mean under load.
Every Submit of cv, load and order is listed with its trust beside the CPU wait its timing read
(environment.timing_cpu_pressure: the timed sandboxes' share of the time waiting for a CPU, or
the host's where unknown); a timing that waited beyond the contended rule's bound and is still
shown verified counts against the target of 0 (issue 41). Each part's line says this
machine's load average when it ended.
  order    20 pairs of two correct solutions whose work differs by exactly 20 %: the file's
           functions repeated 5 times (A) and 6 times (B) per call; a pair is ordered right
           when A's speedup is higher than B's. The order inside a pair alternates.
  sweep    throughput against concurrency: 24 Runs from 1, 2, 4 and 8 clients (for the plot).
Bounded: every judging is waited for at most --max-wait-s, the whole run at most --max-total-s.

The code, by concern: client.py (the site's API, users and sign-up, one judging and the clients
sharing a list), machine.py (this machine's CPUs and load), figures.py (targets, percentiles,
CV, each judging's phases and trust), plots.py (the SVG plots), parts.py (the parts above) and
__main__.py (the flags). Standard library and the sandbox package only: no torch or Django, so
it runs under the system's python3 too.
"""

"""The settings by concern, read from the environment: judge_site/settings.py takes them all.

queues.py: Redis, Celery and the maintenance queues; judging.py: the judge, its sandboxes and
worker hosts; accounts.py: sign-up, the log-in throttle and e-mail. Each variable is listed in
.env.example.
"""

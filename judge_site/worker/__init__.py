"""The worker: what judges, in a package of its own below the apps that ask it to (catalog,
submissions, staff). ``engine.JudgeEngine`` (one per process: ``engine.judge_engine()``) with the
backends it builds (backends.py, images.py), the quiet-CPU guard of timed judgings (quiet.py),
the confined graders where authors' code runs (confinement.py, host_confinement.py for a
maintainer's commands), the GPUs a worker holds (gpus.py), a worker host's package cache
(package_cache.py) and the workers' heartbeat (heartbeat.py). It imports no app of the site, only
judge_site.core and sandbox/ (tests/api/test_app_layers.py)."""

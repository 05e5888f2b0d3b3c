"""Developer tools of the site, each run as ``python -m judge_site.tools.<name>`` (scripts/ keeps a
launcher of the same name and flags, scripts/lib/run_module): figures, not part of the site,
which imports nothing from here."""

"""The trusted grader: judges one submission of one problem package (torch, never Django).

entry.py is its entry point (``judge``: registers the built-in kinds, then the one loop in
judging.py); kinds/ are the loop's strategies (tensor, practice, scratch); session.py drives one
runner over the channel; compare.py/compare_view.py, feedback.py and hints.py say what a result
means; package.py loads a package (the cases its tests.py defines are sandbox/problem.py's),
kernels_source.py inlines trusted sources, cost.py and statement_cases.py read its tables;
check.py is the package check; contracts.py holds the verdicts and limits every layer shares.
process.py is the confined grader's process, where authors' code runs (the launcher that starts
it is sandbox/host/). Timing and its trust rules are sandbox/bench/.

This __init__ imports nothing: the web and the host import contracts and package without torch.
"""

"""Pairs of similar documents per problem, and the shared fragments of one pair.

Framework-free: the Django side (selectors.py) gathers each student's code, this module scores.
A pair's score is its shared fingerprints over the smaller document's (fingerprints.score),
after the problem's boilerplate is removed from both: every k-gram of the starter code, and the
fingerprints found in more than half of the class's documents for that problem.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from judge_site.similarity import fingerprints

# More than this share of the class wrote it: the problem's own boilerplate.
COMMON_FRACTION = 0.5
# ... counted only in a class of at least this many documents for the problem.
COMMON_MIN_DOCUMENTS = 10
# A document with fewer fingerprints of its own (beyond the boilerplate) is never scored: a few
# tokens added to the starter code cannot tell a copy from the obvious fix.
MIN_FINGERPRINTS = 4
DEFAULT_THRESHOLD = 0.6

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Entry:
    """One student's code for one problem."""

    user: str
    submission_id: int
    code: str


@dataclass(frozen=True)
class ProblemInput:
    number: int
    starter: str
    entries: list[Entry]


@dataclass(frozen=True)
class Match:
    """A pair of students' code for one problem; ``a`` sorts before ``b``."""

    problem: int
    a: str
    b: str
    a_submission: int
    b_submission: int
    score: float

    def to_json(self) -> dict[str, object]:
        """The command's contract: exactly these keys (docs/courses.md, "Similarity")."""
        return {
            "a": self.a, "b": self.b, "problem": self.problem, "score": round(self.score, 4),
            "a_submission": self.a_submission, "b_submission": self.b_submission,
        }


@dataclass(frozen=True)
class Report:
    matches: list[Match]  # at or above the threshold, highest score first
    boilerplate: dict[int, list[int]]  # problem number -> the common hashes left out
    documents: int
    pairs_scored: int


def steps_for(problems: list[ProblemInput]) -> int:
    """The progress total of ``compare``: a step per document, a step per problem."""
    return sum(len(p.entries) for p in problems) + len(problems)


def compare(
    problems: list[ProblemInput], threshold: float, progress: Progress | None = None
) -> Report:
    """Every pair of students per problem scored; those at or above ``threshold`` returned,
    highest first (then by problem, then by names). ``progress(done, total)`` is called every
    few documents and after each problem."""
    total = steps_for(problems)
    done = 0
    matches: list[Match] = []
    boilerplate: dict[int, list[int]] = {}
    pairs = 0
    for problem in problems:
        starter = fingerprints.starter_hashes(problem.starter)
        docs = []
        for entry in problem.entries:
            docs.append((entry, fingerprints.document(entry.submission_id, entry.code)))
            done += 1
            if progress is not None and done % 25 == 0:
                progress(done, total)
        common = fingerprints.common_hashes(
            (doc for _, doc in docs), COMMON_FRACTION, COMMON_MIN_DOCUMENTS
        )
        boilerplate[problem.number] = sorted(common)
        for _, doc in docs:
            doc.exclude(starter | common)
        scored = [(e, d) for e, d in docs if len(d.fingerprints) >= MIN_FINGERPRINTS]
        for (ea, da), (eb, db) in combinations(scored, 2):
            pairs += 1
            value = fingerprints.score(da, db, MIN_FINGERPRINTS)
            if value >= threshold and value > 0:
                if eb.user < ea.user:
                    ea, eb = eb, ea
                matches.append(Match(problem.number, ea.user, eb.user,
                                     ea.submission_id, eb.submission_id, value))
        done += 1
        if progress is not None:
            progress(done, total)
    matches.sort(key=lambda m: (-m.score, m.problem, m.a, m.b))
    return Report(matches, boilerplate, sum(len(p.entries) for p in problems), pairs)


@dataclass(frozen=True)
class Segment:
    text: str
    shared: bool


def shared_segments(
    code_a: str, code_b: str, excluded: set[int]
) -> tuple[list[Segment], list[Segment]]:
    """Both sources cut into segments, ``shared`` where a run of tokens (a k-gram) of one is in
    the other, boilerplate (``excluded``) left unmarked. Every k-gram is marked, not only the
    kept ones, so a shared fragment reads whole."""
    doc_a = fingerprints.document(0, code_a)
    doc_b = fingerprints.document(1, code_b)
    shared = (set(doc_a.hashes) & set(doc_b.hashes)) - excluded
    return _segments(code_a, doc_a, shared), _segments(code_b, doc_b, shared)


def _segments(code: str, doc: fingerprints.Document, shared: set[int]) -> list[Segment]:
    """``code`` cut at the runs it shares. A run counts from ``WINDOW`` k-grams in a row (the
    length winnowing always catches): shorter ones are idioms any two solutions have."""
    spans = doc.tokens.spans
    runs: list[tuple[int, int]] = []  # first and last k-gram of each run of shared k-grams
    for i, h in enumerate(doc.hashes):
        if h not in shared:
            continue
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    marked: list[tuple[int, int]] = []
    for first, last in runs:
        if last - first + 1 < fingerprints.WINDOW:
            continue
        start, end = spans[first][0], spans[last + fingerprints.KGRAM - 1][1]
        if marked and start <= marked[-1][1]:
            marked[-1] = (marked[-1][0], max(end, marked[-1][1]))
        else:
            marked.append((start, end))
    out: list[Segment] = []
    at = 0
    for start, end in marked:
        if start > at:
            out.append(Segment(code[at:start], False))
        out.append(Segment(code[start:end], True))
        at = end
    if at < len(code):
        out.append(Segment(code[at:], False))
    return out


def shared_share(segments: list[Segment]) -> float:
    """The share of a source's characters (spaces aside) marked shared, for the page."""
    total = sum(len("".join(s.text.split())) for s in segments)
    marked = sum(len("".join(s.text.split())) for s in segments if s.shared)
    return marked / total if total else 0.0

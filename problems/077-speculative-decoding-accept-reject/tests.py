"""Tests of problem 77. Public cases are the statement's examples, value for value.

``acceptance_probs`` and ``residual_probs`` are compared with the reference as usual.
``speculative_step`` is random: its cases keep the distributions fixed (the secret seed of a
judging chooses the sampler's ``seed`` and, in ``step_statistics``, the drafted tokens), and
their checks (:class:`StepCheck`) recompute what must hold in float64 here, independently of
the reference:

* structure: int64 ``num_accepted [n]`` in ``[0, k]`` and ``tokens [n, k + 1]``, token ids in
  ``[0, V)`` up to position ``num_accepted`` and ``pad_id`` after it;
* where the outcome is certain (every acceptance probability 0 or 1), the exact number
  accepted and the accepted drafts;
* statistically, with Pearson's chi-square test at ``ALPHA``: the number accepted against its
  exact distribution, and at each position ``j`` the token emitted by the rows that reached it
  (``num_accepted >= j``) against the target distribution ``p_j``: speculative decoding is
  exact in distribution (or, in the certain cases, the one drawn token against the residual,
  its fallback or ``p_k``). A token of probability 0 fails at once.

The step cases hold 9 tests (docs/sampling_tests.md has the measured false-reject rate)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from sandbox.problem import Call, Case

ALPHA = 1e-6
ROWS = 20_000
MIN_EXPECTED = 75.0

# The statement's examples: B = 1, k = 2, V = 4.
EX_Q = [[[0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25]]]
EX_P = [[[0.25, 0.25, 0.5, 0.0], [0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0]]]
EX_DRAFTS = [[0, 3]]
EX_RES_Q = [[0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25]]
EX_RES_P = [[0.2, 0.3, 0.4, 0.1], [0.25, 0.25, 0.25, 0.25]]
EX_STEP_Q = [[[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]]
EX_STEP_P = [[[0.25, 0.25, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0], [0.25, 0.25, 0.25, 0.25]]]
EX_STEP_DRAFTS = [2, 0]

# step_statistics: k = 3, V = 5; each position accepts with probability 0.75 overall; the bonus
# distribution p[3] is far from p[2].
STAT_Q = [[0.40, 0.30, 0.15, 0.10, 0.05],
          [0.10, 0.20, 0.40, 0.20, 0.10],
          [0.25, 0.25, 0.20, 0.15, 0.15]]
STAT_P = [[0.20, 0.25, 0.30, 0.15, 0.10],
          [0.15, 0.30, 0.25, 0.10, 0.20],
          [0.10, 0.40, 0.20, 0.25, 0.05],
          [0.50, 0.05, 0.05, 0.10, 0.30]]


def chi_square_p_value(counts: torch.Tensor, probs: torch.Tensor) -> float:
    """Pearson's goodness-of-fit p-value of ``counts`` against ``probs`` over the categories of
    non-zero probability (the regularised upper incomplete gamma function)."""
    support = probs > 0
    n = float(counts.sum())
    expected = n * probs[support]
    stat = float(((counts[support].double() - expected) ** 2 / expected).sum())
    dof = int(support.sum()) - 1
    if dof == 0 or n == 0:
        return 1.0
    return float(torch.special.gammaincc(torch.tensor(dof / 2, dtype=torch.float64),
                                         torch.tensor(stat / 2, dtype=torch.float64)))


def residual(q: Sequence[float], p: Sequence[float]) -> list[float]:
    """The statement's residual in float64: max(0, p - q) normalised, or p where that is 0."""
    excess = [max(0.0, pi - qi) for pi, qi in zip(p, q, strict=True)]
    total = sum(excess)
    return [e / total for e in excess] if total > 0 else list(p)


class StepCheck:
    """The ``check`` of a ``speculative_step`` case over ``rows`` rows with the same
    distributions. Either ``drafted_from_q`` (the drafts are random draws from ``q``: test the
    number accepted and each position's emitted token against ``p_j``), or the outcome is
    certain: every row accepts exactly ``accepted`` (its drafts ``drafts``) and then draws one
    token from ``drawn``."""

    def __init__(self, rows: int, k: int, v: int, pad_id: int, *,
                 q: list[list[float]] | None = None, p: list[list[float]] | None = None,
                 accepted: int = 0, drafts: Sequence[int] = (), drawn: Sequence[float] = ()) -> None:
        self.rows, self.k, self.v, self.pad_id = rows, k, v, pad_id
        self.tests: list[tuple[str, int, torch.Tensor]] = []  # (what, position, distribution)
        if q is not None and p is not None:
            beta = [sum(min(a, b) for a, b in zip(qi, pi, strict=True)) for qi, pi in zip(q, p, strict=False)]
            reach = [math.prod(beta[:j]) for j in range(k + 1)]  # P(num_accepted >= j)
            self.accepted_dist: torch.Tensor | None = torch.tensor(
                [reach[j] - (reach[j + 1] if j < k else 0.0) for j in range(k + 1)], dtype=torch.float64)
            for j in range(k + 1):
                self.tests.append((f"position {j} (rows with num_accepted >= {j})", j,
                                   torch.tensor(p[j], dtype=torch.float64)))
            smallest = [rows * reach[j] * min(x for x in p[j] if x > 0) for j in range(k + 1)]
            smallest += [rows * float(x) for x in self.accepted_dist if x > 0]
            self.accepted = -1
        else:
            self.accepted_dist = None
            self.accepted, self.drafts = accepted, list(drafts)
            self.tests.append((f"the token drawn at position {accepted}", accepted,
                               torch.tensor(list(drawn), dtype=torch.float64)))
            smallest = [rows * min(x for x in drawn if x > 0)] if sum(x > 0 for x in drawn) > 1 else []
        if rows > 1 and smallest and min(smallest) < MIN_EXPECTED:
            raise ValueError(f"an expected count of {min(smallest):.1f} is below {MIN_EXPECTED}")

    def __call__(self, expected: Any, got: Any) -> str | None:
        return self.judge(got)[0]

    def judge(self, got: Any) -> tuple[str | None, list[float]]:
        """The verdict's message (None: passed) and every chi-square p-value (0.0 for a
        failure that needs no test)."""
        if not isinstance(got, list | tuple) or len(got) != 2:
            return "expected a pair (num_accepted, tokens)", [0.0]
        num, tokens = got
        n, k = self.rows, self.k
        if not all(isinstance(t, torch.Tensor) and t.dtype == torch.int64 for t in (num, tokens)):
            return "expected two int64 tensors", [0.0]
        if tuple(num.shape) != (n,) or tuple(tokens.shape) != (n, k + 1):
            return (f"expected shapes [{n}] and [{n}, {k + 1}], got {list(num.shape)} and "
                    f"{list(tokens.shape)}"), [0.0]
        if bool(((num < 0) | (num > k)).any()):
            return f"num_accepted must lie in [0, {k}]", [0.0]
        positions = torch.arange(k + 1)[None, :]
        live = positions <= num[:, None]
        if bool((live & ((tokens < 0) | (tokens >= self.v))).any()):
            return f"tokens up to position num_accepted must lie in [0, {self.v})", [0.0]
        if bool((~live & (tokens != self.pad_id)).any()):
            return f"tokens after position num_accepted must be pad_id = {self.pad_id}", [0.0]
        if self.accepted >= 0:
            if bool((num != self.accepted).any()):
                return (f"every row must accept exactly {self.accepted} drafted tokens here, "
                        f"got {sorted(set(num.tolist()))[:5]}"), [0.0]
            want = torch.tensor(self.drafts[: self.accepted], dtype=torch.int64)
            if bool((tokens[:, : self.accepted] != want).any()):
                return f"the accepted tokens must be the drafts {want.tolist()}", [0.0]
        p_values = []
        if self.accepted_dist is not None:
            counts = torch.bincount(num, minlength=k + 1)
            message = self._fit("num_accepted", counts, self.accepted_dist, p_values)
            if message:
                return message, p_values
        for what, j, dist in self.tests:
            column = tokens[num >= j, j]
            counts = torch.bincount(column, minlength=self.v)
            message = self._fit(what, counts, dist, p_values)
            if message:
                return message, p_values
        return None, p_values

    @staticmethod
    def _fit(what: str, counts: torch.Tensor, dist: torch.Tensor, p_values: list[float]) -> str | None:
        impossible = (counts > 0) & (dist == 0)
        if bool(impossible.any()):
            p_values.append(0.0)
            value = int(impossible.nonzero()[0])
            return f"{what}: {value} has probability 0 but came {int(counts[value])} times"
        p_value = chi_square_p_value(counts, dist)
        p_values.append(p_value)
        if p_value < ALPHA:
            want = (dist * float(counts.sum())).round().long().tolist()
            return (f"{what}: the counts {counts.tolist()} do not fit the distribution (expected "
                    f"about {want}; chi-square p-value {p_value:.2g})")
        return None


def _seed(gen: torch.Generator) -> int:
    return int(torch.randint(0, 2**62, (), generator=gen))


def _rows(values: list[list[float]], rows: int) -> torch.Tensor:
    """One row's [positions, V] table expanded to ``rows`` rows (stride 0: a view)."""
    return torch.tensor(values)[None].expand(rows, -1, -1)


def _statistics(gen: torch.Generator) -> Call:
    """Drafts drawn from q, per row and position, from the judging's generator."""
    q = torch.tensor(STAT_Q)
    drafts = torch.stack([torch.multinomial(q[i], ROWS, replacement=True, generator=gen)
                          for i in range(len(STAT_Q))], dim=1)
    return Call((_rows(STAT_Q, ROWS), drafts, _rows(STAT_P, ROWS), _seed(gen)))


def _certain(q: list[list[float]], drafts: list[int], p: list[list[float]], rows: int = ROWS,
             pad_id: int | None = None) -> Any:
    def make(gen: torch.Generator) -> Call:
        tokens = torch.tensor(drafts, dtype=torch.int64).reshape(1, len(drafts)).expand(rows, -1)
        args = (_rows(q, rows) if q else torch.zeros(rows, 0, len(p[0])), tokens, _rows(p, rows), _seed(gen))
        return Call(args if pad_id is None else (*args, pad_id))

    return make


def _probs(gen: torch.Generator, *shape: int, sharp: float = 1.5) -> torch.Tensor:
    return torch.softmax(torch.randn(*shape, generator=gen) * sharp, dim=-1)


def _accept_random(gen: torch.Generator, dtype: torch.dtype = torch.float32, b: int = 4, k: int = 3,
                   v: int = 10) -> Call:
    q, p = _probs(gen, b, k, v), _probs(gen, b, k + 1, v)
    drafts = torch.stack([torch.multinomial(q[i], 1, generator=gen)[:, 0] for i in range(b)])
    return Call((q.to(dtype), drafts, p.to(dtype)))


def _accept_edges(gen: torch.Generator) -> Call:
    """Row 0: q = 0 at the draft where p > 0 (1); row 1: p = q = 0 there (0); row 2: p == q
    (1); row 3: p = 0 < q (0); plus random positions."""
    call = _accept_random(gen, b=4, k=2, v=6)
    q, drafts, p = (t.clone() for t in call.args)
    x = drafts[:, 0]
    q[0, 0, x[0]], p[0, 0, x[0]] = 0.0, 0.3
    q[1, 0, x[1]], p[1, 0, x[1]] = 0.0, 0.0
    p[2, :2] = q[2]
    p[3, 0, x[3]] = 0.0
    return Call((q, drafts, p))


def _accept_views(gen: torch.Generator) -> Call:
    """q every other value of a wider last axis, p transposed in memory, drafts strided."""
    q, drafts, p = _accept_random(gen).args
    wide = torch.zeros(*q.shape[:-1], 2 * q.shape[-1])
    wide[..., 1::2] = q
    wide_drafts = torch.stack([drafts, drafts], dim=-1).reshape(drafts.shape[0], -1)
    return Call((wide[..., 1::2], wide_drafts[:, ::2], p.transpose(1, 2).contiguous().transpose(1, 2)))


def _residual_random(gen: torch.Generator, dtype: torch.dtype = torch.float32) -> Call:
    return Call((_probs(gen, 4, 3, 12).to(dtype), _probs(gen, 4, 3, 12).to(dtype)))


def _residual_equal_rows(gen: torch.Generator) -> Call:
    """Rows where p == q (the residual is 0 everywhere: p itself) among ordinary rows."""
    q, p = _probs(gen, 6, 8), _probs(gen, 6, 8)
    p[1], p[4] = q[1], q[4]
    return Call((q, p))


def _residual_views(gen: torch.Generator) -> Call:
    """q transposed in memory, p the first half of a wider last axis."""
    q, p = _residual_random(gen).args
    return Call((q.transpose(1, 2).contiguous().transpose(1, 2), torch.cat([p, p], dim=-1)[..., :12]))


# step_draft_prob_zero: position 0 drafts token 0 where q = 0 < p (accepted); position 1
# drafts token 3 where p = 0 (rejected); the one drawn token comes from the residual of position 1.
ZERO_Q = [[0.0, 0.5, 0.5, 0.0], [0.25, 0.25, 0.25, 0.25]]
ZERO_P = [[0.6, 0.2, 0.2, 0.0], [0.5, 0.3, 0.2, 0.0], [0.1, 0.2, 0.3, 0.4]]
# step_residual_zero: p == q; the draft (token 3) has p = q = 0: rejected; the residual is 0
# everywhere, so the drawn token comes from p.
SAME = [[0.5, 0.3, 0.2, 0.0]]
SAME_P = [*SAME, [0.25, 0.25, 0.25, 0.25]]
# step_all_accepted: p == q at both drafted positions: everything accepted; the bonus comes from
# p[2], not p[1].
ALL_Q = [[0.3, 0.3, 0.2, 0.2], [0.1, 0.2, 0.3, 0.4]]
ALL_P = [*ALL_Q, [0.6, 0.25, 0.1, 0.05]]
NO_DRAFT_P = [[0.1, 0.2, 0.3, 0.4]]

CASES: list[Case] = [
    Case("example_acceptance", "acceptance_probs",
         lambda g: Call((torch.tensor(EX_Q), torch.tensor(EX_DRAFTS), torch.tensor(EX_P))), public=True,
         note="min(1, p/q) at the drafted tokens: 0.25/0.5, then 0/0.25", tags=("acceptance",)),
    Case("example_residual", "residual_probs",
         lambda g: Call((torch.tensor(EX_RES_Q), torch.tensor(EX_RES_P))), public=True,
         note="max(0, p - q) normalised; where p == q the residual is 0 everywhere: p itself",
         tags=("residual",)),
    Case("example_step_certain", "speculative_step",
         lambda g: Call((torch.tensor(EX_STEP_Q), torch.tensor([EX_STEP_DRAFTS]), torch.tensor(EX_STEP_P), _seed(g))),
         public=True, check=StepCheck(1, 2, 4, -1, accepted=1, drafts=EX_STEP_DRAFTS, drawn=[0.0, 0.0, 0.0, 1.0]),
         note="draft 2 has q = 0 < p: accepted; draft 0 has p = 0: rejected; the residual is token 3",
         tags=("step_rule",)),
    # hidden: acceptance_probs
    Case("accept_random", "acceptance_probs", lambda g: _accept_random(g),
         note="random distributions, drafts drawn from q: min(1, p/q), never above 1",
         tags=("acceptance",)),
    Case("accept_edges", "acceptance_probs", _accept_edges,
         note="q = 0 < p gives 1, p = q = 0 gives 0 (no NaN), p == q gives 1, p = 0 gives 0",
         tags=("q_zero",)),
    Case("accept_fp16", "acceptance_probs", lambda g: _accept_random(g, torch.float16),
         note="float16 probabilities: a float32 result", tags=("acceptance",)),
    Case("accept_non_contiguous", "acceptance_probs", _accept_views,
         note="strided q and drafts, p transposed in memory", tags=("acceptance", "non_contiguous")),
    Case("accept_bad_shape", "acceptance_probs",
         lambda g: Call((_probs(g, 2, 3, 5), torch.zeros(2, 3, dtype=torch.int64), _probs(g, 2, 3, 5))),
         note="target_probs with k positions instead of k + 1: ValueError", tags=("errors",)),
    Case("accept_token_out_of_range", "acceptance_probs",
         lambda g: Call((_probs(g, 2, 3, 5), torch.tensor([[0, 1, 2], [3, 5, 0]]), _probs(g, 2, 4, 5))),
         note="a drafted token id equal to V: IndexError", tags=("errors",)),
    Case("accept_token_negative", "acceptance_probs",
         lambda g: Call((_probs(g, 2, 3, 5), torch.tensor([[0, 1, 2], [3, -1, 0]]), _probs(g, 2, 4, 5))),
         note="a drafted token id of -1: IndexError (no wrapping to V - 1)", tags=("errors",)),
    # hidden: residual_probs
    Case("residual_random", "residual_probs", lambda g: _residual_random(g),
         note="max(0, p - q) renormalised over the vocabulary", tags=("residual",)),
    Case("residual_equal_rows", "residual_probs", _residual_equal_rows,
         note="rows with p == q: p itself (no 0/0, no uniform)", tags=("residual_zero",)),
    Case("residual_bf16", "residual_probs", lambda g: _residual_random(g, torch.bfloat16),
         note="bfloat16 probabilities, computed and returned in float32", tags=("residual",)),
    Case("residual_non_contiguous", "residual_probs", _residual_views,
         note="q transposed in memory, p a slice of a wider tensor", tags=("residual", "non_contiguous")),
    Case("residual_bad_shape", "residual_probs",
         lambda g: Call((_probs(g, 2, 5), _probs(g, 2, 6))), note="different shapes: ValueError",
         tags=("errors",)),
    # hidden: speculative_step, judged by StepCheck
    Case("step_statistics", "speculative_step", _statistics,
         check=StepCheck(ROWS, 3, 5, -1, q=STAT_Q, p=STAT_P),
         note="20000 rows, drafts drawn from q: the number accepted and each position's token against p",
         tags=("statistics",)),
    Case("step_all_accepted", "speculative_step", _certain(ALL_Q, [1, 3], ALL_P),
         check=StepCheck(ROWS, 2, 4, -1, accepted=2, drafts=[1, 3], drawn=ALL_P[2]),
         note="p == q: every draft accepted, then the bonus token from p[k]", tags=("bonus",)),
    Case("step_draft_prob_zero", "speculative_step", _certain(ZERO_Q, [0, 3], ZERO_P, pad_id=99),
         check=StepCheck(ROWS, 2, 4, 99, accepted=1, drafts=[0, 3], drawn=residual(ZERO_Q[1], ZERO_P[1])),
         note="q = 0 < p accepts, p = 0 rejects; the draw from the residual; pad_id = 99",
         tags=("step_rule",)),
    Case("step_residual_zero", "speculative_step", _certain(SAME, [3], SAME_P),
         check=StepCheck(ROWS, 1, 4, -1, accepted=0, drafts=[3], drawn=SAME[0]),
         note="p == q with p = q = 0 at the draft: rejected, and the residual 0 everywhere means p",
         tags=("residual_zero",)),
    Case("step_no_drafts", "speculative_step", _certain([], [], NO_DRAFT_P),
         check=StepCheck(ROWS, 0, 4, -1, accepted=0, drafts=[], drawn=NO_DRAFT_P[0]),
         note="k = 0: only the bonus token, from p[0]", tags=("bonus",)),
    Case("step_bad_shape", "speculative_step",
         lambda g: Call((_probs(g, 2, 3, 5), torch.zeros(2, 2, dtype=torch.int64), _probs(g, 2, 4, 5), 0)),
         note="draft_tokens [B, k - 1]: ValueError", tags=("errors",)),
    Case("step_token_out_of_range", "speculative_step",
         lambda g: Call((_probs(g, 2, 3, 5), torch.tensor([[0, 1, 2], [3, 5, 0]]), _probs(g, 2, 4, 5), 0)),
         note="a drafted token id equal to V: IndexError", tags=("errors",)),
]

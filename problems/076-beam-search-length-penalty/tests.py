"""Tests of problem 76. Public cases are the statement's examples, value for value.

Random cases are redrawn (from the same generator) until no two of a row's best K + 1
candidate scores are closer than 1e-4 without being equal, so no rounding decides a choice;
exact ties come only from the cases built for the tie rule."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

EXAMPLE_BEAMS = [[-1.0, -1.8, -1.8]]
EXAMPLE_TOKENS = [[[-2.0, -0.5, -1.5, -1.0], [-0.1, -0.2, -0.3, -0.4], [-0.3, -2.0, -2.5, -4.0]]]
FIRST_TOKENS = [-0.2, -1.0, -2.5]
GAP = 1e-4


def _example() -> Call:
    return Call((torch.tensor(EXAMPLE_BEAMS), torch.tensor(EXAMPLE_TOKENS), torch.tensor([[2, 3, 2]]),
                 torch.tensor([[False, True, False]]), 3, 0, 1.0))


def _first_example() -> Call:
    tokens = torch.tensor(FIRST_TOKENS)[None, None].expand(1, 2, 3)
    return Call((torch.zeros(1, 2), tokens, torch.zeros(1, 2, dtype=torch.int64),
                 torch.zeros(1, 2, dtype=torch.bool), 2, 0, 1.0), {"first_step": True})


def _candidate_scores(call: Call) -> list[list[float]]:
    """Each row's candidate scores in float64, best first (the statement's rule, no ties)."""
    beams, tokens, lengths, finished, _eos, pad, alpha = call.args[:7]
    first = call.kwargs.get("first_step", False)
    rows = []
    for b in range(tokens.shape[0]):
        scores = []
        for i in range(1 if first else tokens.shape[1]):
            n = int(lengths[b, i])
            if bool(finished[b, i]):
                scores.append(float(beams[b, i]) / n**alpha)
                continue
            base = float(beams[b, i])
            scores += [(base + float(x)) / (n + 1) ** alpha for x in tokens[b, i].tolist()]
        rows.append(sorted(scores, reverse=True))
    return rows


def _separated(call: Call) -> bool:
    k = call.args[1].shape[1]
    for scores in _candidate_scores(call):
        top = scores[: k + 1]
        if any(0 < a - b < GAP * max(1.0, abs(a)) for a, b in zip(top, top[1:], strict=False)):
            return False
    return True


def _draw(gen: torch.Generator, b: int, k: int, v: int, alpha: float, p_finished: float = 0.0,
          eos_boost: float = 0.0, eos_id: int = 2, pad_id: int = 0) -> Call:
    """Live beams share one length (they grew together); finished ones stopped earlier or now."""
    for _ in range(100):
        beams = -(torch.rand(b, k, generator=gen) * 6 + 0.5)
        tokens = torch.log_softmax(torch.randn(b, k, v, generator=gen) * 2, dim=-1)
        tokens[:, :, eos_id] += eos_boost
        step = int(torch.randint(1, 12, (), generator=gen))
        lengths = torch.full((b, k), step, dtype=torch.int64)
        finished = torch.rand(b, k, generator=gen) < p_finished
        early = torch.randint(1, step + 2, (b, k), generator=gen)
        lengths = torch.where(finished, early, lengths)
        call = Call((beams, tokens, lengths, finished, eos_id, pad_id, alpha))
        if _separated(call):
            return call
    raise RuntimeError("no well-separated draw in 100 tries")


def _first(gen: torch.Generator, b: int = 3, k: int = 4, v: int = 12, alpha: float = 0.6) -> Call:
    """The first step: K copies of the prompt, one row of log-probs broadcast over the beams."""
    for _ in range(100):
        row = torch.log_softmax(torch.randn(b, 1, v, generator=gen) * 2, dim=-1)
        call = Call((torch.zeros(b, k), row.expand(b, k, v), torch.zeros(b, k, dtype=torch.int64),
                     torch.zeros(b, k, dtype=torch.bool), 1, 0, alpha), {"first_step": True})
        if _separated(call):
            return call
    raise RuntimeError("no well-separated draw in 100 tries")


def _ties(gen: torch.Generator) -> Call:
    """Integer log-probs, alpha = 1, one length: many exactly equal scores, also between a
    finished beam (one token longer) and live candidates."""
    b, k, v = 3, 4, 5
    beams = -torch.randint(1, 4, (b, k), generator=gen).float()
    tokens = -torch.randint(0, 3, (b, k, v), generator=gen).float()
    lengths = torch.full((b, k), 3, dtype=torch.int64)
    finished = torch.zeros(b, k, dtype=torch.bool)
    finished[:, 2] = True
    lengths[:, 2] = 4
    beams[:, 2] = -4.0  # scores -1: ties with the live candidates of log-prob -4
    return Call((beams, tokens, lengths, finished, 4, 0, 1.0))


def _all_finished(gen: torch.Generator) -> Call:
    return _draw(gen, 2, 4, 6, 1.0, p_finished=1.0)


def _finished_kept(gen: torch.Generator) -> Call:
    """Beams 1 and 3 finished with log-probs near 0: their pads beat every live candidate."""
    for _ in range(100):
        beams, tokens, lengths, finished, eos, pad, alpha = _draw(gen, 3, 4, 8, 1.0).args
        finished = torch.zeros(3, 4, dtype=torch.bool)
        finished[:, 1::2] = True
        beams = torch.where(finished, -torch.rand(3, 4, generator=gen) * 0.01, beams)
        lengths = torch.where(finished, torch.randint(1, 6, (3, 4), generator=gen), lengths)
        call = Call((beams, tokens, lengths, finished, eos, pad, alpha))
        if _separated(call):
            return call
    raise RuntimeError("no well-separated draw in 100 tries")


def _views(gen: torch.Generator) -> Call:
    beams, tokens, lengths, finished, eos, pad, alpha = _draw(gen, 3, 4, 9, 0.8, 0.3).args
    wide = torch.zeros(3, 9)
    wide[:, 1::2] = beams
    return Call((wide[:, 1::2], tokens.transpose(1, 2).contiguous().transpose(1, 2),
                 lengths.t().contiguous().t(), finished, eos, pad, alpha))


def _with_wrong_first_beam(gen: torch.Generator) -> Call:
    """The first step where beams 1.. hold other log-probs (say, stale): only beam 0 counts."""
    call = _first(gen, 2, 3, 8, 1.0)
    beams, tokens, *rest = call.args
    tokens = tokens.clone()
    tokens[:, 1:] = torch.log_softmax(torch.randn(2, 2, 8, generator=gen) * 3, dim=-1)
    return Call((beams, tokens, *rest), dict(call.kwargs))


CASES: list[Case] = [
    Case("example_step", "beam_search_step", lambda g: _example(), public=True,
         note="a finished beam keeps its score and competes; EOS finishes a beam",
         tags=("finished",)),
    Case("example_first_step", "beam_search_step", lambda g: _first_example(), public=True,
         note="first step: the beams are copies, only beam 0 expands", tags=("first_step",)),
    Case("step_random", "beam_search_step", lambda g: _draw(g, 4, 4, 16, 0.6),
         note="4 rows of 4 live beams over 16 tokens, alpha 0.6", tags=("score",)),
    Case("step_alpha_zero", "beam_search_step", lambda g: _draw(g, 3, 3, 10, 0.0, 0.3),
         note="alpha 0: plain cumulative log-probs", tags=("score",)),
    Case("step_alpha_one", "beam_search_step", lambda g: _draw(g, 3, 5, 12, 1.0, 0.4),
         note="alpha 1: mean log-probs; finished beams of other lengths", tags=("score",)),
    Case("step_long_finished", "beam_search_step", lambda g: _draw(g, 4, 4, 8, 1.5, 0.5),
         note="alpha 1.5 and many finished beams: their length is not grown by the pad",
         tags=("finished",)),
    Case("step_finished_kept", "beam_search_step", _finished_kept,
         note="finished beams that outscore every live candidate: kept, pad at no cost",
         tags=("finished",)),
    Case("step_eos_likely", "beam_search_step", lambda g: _draw(g, 3, 4, 10, 0.7, 0.2, 3.0),
         note="EOS among the best tokens: the new beams are finished, their length counts it",
         tags=("finished",)),
    Case("step_all_finished", "beam_search_step", _all_finished,
         note="every beam finished: they only reorder by score, pad at no cost",
         tags=("finished",)),
    Case("step_greedy", "beam_search_step", lambda g: _draw(g, 5, 1, 20, 0.6, 0.2),
         note="K = 1", tags=("score",)),
    Case("step_wide_vocab", "beam_search_step", lambda g: _draw(g, 2, 6, 300, 0.6, 0.2),
         note="300 tokens, 6 beams: one top-K over K * V candidates, not per beam",
         tags=("selection",)),
    Case("step_ties", "beam_search_step", _ties,
         note="equal scores: the lower parent beam first, then the lower token", tags=("ties",)),
    Case("step_first", "beam_search_step", lambda g: _first(g),
         note="first step: only beam 0 expands (no K copies of one hypothesis)",
         tags=("first_step",)),
    Case("step_first_stale_beams", "beam_search_step", _with_wrong_first_beam,
         note="first step with other log-probs in beams 1..: ignored", tags=("first_step",)),
    Case("step_non_contiguous", "beam_search_step", _views,
         note="strided beam log-probs, transposed token log-probs and lengths", tags=("score", "non_contiguous")),
    Case("step_first_too_few_tokens", "beam_search_step",
         lambda g: Call((torch.zeros(1, 4), torch.zeros(1, 4, 3), torch.zeros(1, 4, dtype=torch.int64),
                         torch.zeros(1, 4, dtype=torch.bool), 1, 0, 1.0), {"first_step": True}),
         note="first step with V = 3 < K = 4: ValueError", tags=("errors",)),
    Case("step_shape_mismatch", "beam_search_step",
         lambda g: Call((torch.zeros(2, 3), torch.zeros(2, 4, 5), torch.ones(2, 3, dtype=torch.int64),
                         torch.zeros(2, 3, dtype=torch.bool), 1, 0, 1.0)),
         note="beam log-probs for 3 beams, token log-probs for 4: ValueError", tags=("errors",)),
    Case("step_lengths_broadcast", "beam_search_step",
         lambda g: Call((-torch.rand(2, 3, generator=g),
                         torch.log_softmax(torch.randn(2, 3, 5, generator=g), dim=-1),
                         torch.full((2, 1), 2, dtype=torch.int64),
                         torch.zeros(2, 3, dtype=torch.bool), 1, 0, 1.0)),
         note="lengths [B, 1] would broadcast: ValueError", tags=("errors",)),
    Case("step_finished_broadcast", "beam_search_step",
         lambda g: Call((-torch.rand(2, 3, generator=g),
                         torch.log_softmax(torch.randn(2, 3, 5, generator=g), dim=-1),
                         torch.full((2, 3), 2, dtype=torch.int64),
                         torch.tensor([False, True, False]), 1, 0, 1.0)),
         note="finished [K] would broadcast: ValueError", tags=("errors",)),
]


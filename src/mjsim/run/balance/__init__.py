"""Balancing: find the rule values that meet a designer's targets, by simulation.

`mjsim balance --vary multipliers.qingyise=1..200 --target "property money:qingyise=0.10"`
plays candidate rule sets and searches the values whose measures (any measure of
`mjsim.stats.summarize`, with its session-clustered 95 % interval) meet the targets.

Method
------
- **Common random numbers.** Every candidate is played on the same seed: hand i is dealt
  the same wall under every candidate, so candidates differ only through the rules, and a
  candidate's first N hands are the same whatever N. Each candidate is one variant (one
  partition) of the output dataset, as in `mjsim sweep`; a rerun resumes.
- **One parameter, one target** (`search_1d`): the two ends of the range are played, the
  target is bracketed, and the bracket is bisected over the integers (the next point is
  the linear interpolation of the bracket with the Illinois rule, replaced by the midpoint
  after three steps that did not halve the bracket: a safeguarded regula falsi) until the
  two candidates either side of the answer are adjacent. If either of them still has the
  target inside its 95 % interval, the hands grow (by the square-root law, at least 4
  times, whole chunks of the same seeds) and the pair is played further, the bracket
  widened if the answer moved, until the pair is resolved at 95 % or `--hands` is
  reached. Floats (probabilities such as `fire`) are
  searched the same way on a grid of 1/1000 of the range (a bisection with a sample size
  that grows as the bracket narrows: a stochastic root-finder of the probabilistic
  bisection kind, without its Bayesian update). The answer is the candidate of the pair
  closest to the target; the range of values the target cannot tell apart is every value
  whose 95 % interval contains the target at the final hand count (its ends are found by
  the slope of the pair, then checked and bisected).
- **Several parameters or targets** (`search_optuna`): Optuna's TPE sampler (integer-aware,
  multi-objective) minimises each target's standardised deviation |estimate - target| / s,
  s the target's standard error at the first candidate, with every candidate at `--hands`
  hands, then a compass search over the integers polishes the best. The Pareto set of the
  candidates is kept; the answer is the candidate meeting every target with the smallest
  sum of squared standardised deviations (else the Pareto one with the smallest). When no candidate meets every target within its
  interval, the search says so in one line (the targets may conflict).

The search logic takes an evaluator `f(position, hands) -> [(estimate, low, high), ...]`, so
it is tested on synthetic responses without simulation (tests/test_balance.py).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mjsim.run.balance.output import html_page, summary_line, table_rows, write_json, write_rules  # noqa: F401
from mjsim.run.balance.problem import (DEFAULT_TRIALS, FIRST_HANDS, FLOAT_STEPS, GROWTH, RANGE_EVALS,  # noqa: F401
                                       STATE_FILE, Target, Vary, _current, apply, known_measures,
                                       parse_targets, parse_vary)
from mjsim.run.balance.search import (Candidate, Estimate, Evaluator, SearchResult, search_1d,  # noqa: F401
                                      search_choices, search_optuna)
from mjsim.run.balance.simulate import SimulationEvaluator, _show, hands_plan  # noqa: F401


__all__ = ["Balance", "Candidate", "Target", "Vary", "balance", "parse_targets", "parse_vary", "search_1d",
           "search_optuna"]


# ------------------------------------------------------------------------------------
# The whole balance


@dataclass
class Balance:
    """One population's answer."""

    players: tuple
    varies: list[Vary]
    targets: list[Target]
    result: SearchResult
    evaluator: SimulationEvaluator | None = None

    def values(self, pos: tuple) -> tuple:
        return tuple(v.value(p) for v, p in zip(self.varies, pos))

    @property
    def best(self) -> dict:
        return {v.name: x for v, x in zip(self.varies, self.values(self.result.best))}

    @property
    def best_estimates(self) -> list[Estimate]:
        return self.estimates_at(self.result.best)

    def estimates_at(self, pos: tuple) -> list[Estimate]:
        cands = [c for c in self.result.evaluations if c.pos == tuple(pos)]
        return max(cands, key=lambda c: c.hands).est if cands else []

    @property
    def range(self) -> dict | None:
        if self.result.range is None:
            return None
        return {v.name: (v.value(lo), v.value(hi)) for v, (lo, hi) in zip(self.varies, self.result.range)}

    def rules(self, base):
        return apply(base, self.varies, self.values(self.result.best))

    def written(self) -> dict:
        """Each varied key -> the value the chosen rules hold for it: a list-valued key
        (values.qixiaodui) as the whole list ([11, 11]), one entry (values.qixiaodui[1]) as
        that entry."""
        if self.evaluator is None:
            return {k: _plain(v) for k, v in self.best.items()}
        rules = self.rules(self.evaluator.base)
        out = {}
        for v in self.varies:
            x = rules[v.key]
            out[v.name] = _plain(x[v.index] if v.index is not None else x)
        return out

    def table(self) -> list[dict]:
        """Every evaluation: values, hands, each target's estimate and interval."""
        rows = []
        for c in self.result.evaluations:
            row = {v.name: x for v, x in zip(self.varies, self.values(c.pos))}
            row["hands"] = c.hands
            for t, (est, lo, hi) in zip(self.targets, c.est):
                row[t.label] = (est, lo, hi)
            rows.append(row)
        return rows

    def as_json(self) -> dict:
        targets = []
        for t, (est, lo, hi) in zip(self.targets, self.best_estimates):
            targets.append({"target": t.text, "section": t.section, "measure": t.name, "op": t.op,
                            "value": t.value, "estimate": _num(est), "interval": [_num(lo), _num(hi)],
                            "met": t.met(est, lo, hi)})
        rng = self.range
        return {"players": list(self.players), "best": self.written(),
                "values": {k: _plain(v) for k, v in self.best.items()},
                "targets": targets, "hands": self.result.hands, "status": self.result.status,
                "message": self.result.message, "resolved": self.result.resolved,
                "range": None if rng is None else {k: [_plain(a), _plain(b)] for k, (a, b) in rng.items()},
                "range_exact": self.result.range_exact,
                "pareto": [{v.name: _plain(x) for v, x in zip(self.varies, self.values(p))} for p in self.result.pareto],
                "candidates": [{**{k: _plain(v) for k, v in row.items() if not isinstance(v, tuple)},
                                "targets": [{"target": t.text, "estimate": _num(row[t.label][0]),
                                             "interval": [_num(row[t.label][1]), _num(row[t.label][2])]}
                                            for t in self.targets]} for row in self.table()]}


def _num(x: float):
    return x if math.isfinite(x) else None


def _plain(v):
    return [_plain(x) for x in v] if isinstance(v, (tuple, list)) else v


def balance(base, varies: Sequence[Vary], targets: Sequence[Target], *, players="ev", out,
            hands: int, seed: int = 0, session_hands: int = 16, chunk: int | None = None,
            run_step: Callable | None = None, trials: int = DEFAULT_TRIALS, label_suffix: str = "",
            progress: Callable | None = None, **run_options) -> Balance:
    """Search `varies` for `targets` under `base` rules and one player population.

    `hands`: the most hands of any candidate. `run_step(spec)` plays one candidate's step
    (default: mjsim.runner.run(spec, out, **run_options))."""
    from mjsim.run import runner
    from mjsim.dataset.storage import keep_lock

    varies, targets = list(varies), list(targets)
    if not varies:
        raise ValueError("balance needs at least one --vary KEY=LO..HI")
    apply(base, varies, [v.value(v.positions[0]) for v in varies])   # a key given twice, or whole and by entry
    from mjsim.run.spec import table_seconds_per_hand

    chunk_from_hands = hands if chunk is None else None     # named in a refusal of another chunk
    cost = table_seconds_per_hand(base, runner.parse_players(players))
    chunk, start, cap = hands_plan(hands, session_hands, chunk, cost)
    if run_step is None:
        def run_step(spec):
            return runner.run(spec, out, progress=False, **run_options)
    ev = SimulationEvaluator(base, varies, targets, players=players, out=Path(out), seed=seed,
                             session_hands=session_hands, chunk=chunk, run_step=run_step,
                             label_suffix=label_suffix, progress=progress, chunk_from_hands=chunk_from_hands)
    if any(v.kind == "choice" for v in varies) and len(varies) > 1:
        raise ValueError("--vary with a list of choices: only one --vary at a time")
    with keep_lock(out):        # no other run takes the directory between two steps
        if len(varies) == 1 and len(targets) == 1 and varies[0].kind != "choice":
            lo, hi = varies[0].positions
            preferred = _position_of(varies[0], base)
            result = search_1d(ev, targets[0], lo, hi, start=start, cap=cap, chunk=chunk, preferred=preferred,
                               show=lambda p: _show(varies[0].value(p)))
        elif len(varies) == 1 and varies[0].kind == "choice":
            result = search_choices(ev, targets, len(varies[0].choices), hands=cap)
        else:
            spaces = [(v.name, *v.positions) for v in varies]
            result = search_optuna(ev, targets, spaces, hands=cap, trials=trials, seed=seed)
    return Balance(ev.players, varies, targets, result, ev)


def _position_of(vary: Vary, base):
    """The position of the base rules' value (kept when every value meets the target)."""
    v = _current(base, vary.key, vary.index)
    if vary.kind == "int" and isinstance(v, int):
        return v
    if vary.kind == "float" and isinstance(v, (int, float)) and vary.hi > vary.lo:
        return int(round((v - vary.lo) / (vary.hi - vary.lo) * FLOAT_STEPS))
    return None

"""How well the search player's sampler reads the opponents' waits, against ev's danger model.

    python bench/read_calibration.py --rules wanzai --hands 300 [--samples 32] [--read 1 --steps 64]

A Python seat plays as ev (view.builtin, so the tables are ev's own).  At each of its turns
(once it has discarded `--from` tiles) and for every kind it holds, three numbers:

- truth: does some other seat's true concealed hand wait on that kind now (a fit shim
  reads the hidden hands; waits as tests/reference.py's wanzai_waits computes them);
- sampler: the share of the search's samples (sample_hidden with `--read`/`--steps`) in
  which some other seat waits on it;
- ev: ev's fitted chance that discarding it deals in now (ev_discard_risk).

Prints, for the sampler and for ev: the Brier score, the area under the ROC curve (how well
it ranks the deadly kinds above the safe ones: the Mann-Whitney U of scipy.stats divided by
the pairs), and the mean estimate against the truth's base rate.  Wanzai only (the
reference's waits for Anhua need the wild indicator; not needed for this question yet).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from scipy.stats import mannwhitneyu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import reference  # noqa: E402  (the deliberately simple waits of tests/reference.py)

from mjsim.play import game  # noqa: E402
from mjsim.players import Player  # noqa: E402
from mjsim.rulesets.rules import Rules  # noqa: E402


def waits_of(hand, melds) -> set[int]:
    if sum(hand) + 3 * len(melds) != 13:
        return set()
    return set(reference.wanzai_waits(hand, melds))


def opponents_waits(hands, melds, me: int) -> set[int]:
    """Kinds some seat other than `me` waits on, given every seat's concealed hand."""
    return set().union(*(waits_of(hands[q], melds[q]) for q in range(4) if q != me))


class Recorder(Player):
    def __init__(self, a, rows):
        self.a, self.rows = a, rows

    def turn(self, view, options):
        me = view.seat
        if len(view.discards[me]) >= self.a.from_discards:
            self.record(view)
        return view.builtin("ev")

    def record(self, view):
        me = view.seat
        melds = view.melds
        truth = opponents_waits(view._sample_hidden(0, 0.0, 0, 1)[0], melds, me)   # peek=1: the true hands
        hits = np.zeros(34)
        for i in range(self.a.samples):
            got = view._sample_hidden(1000 + i, self.a.read, self.a.steps, self.a.peek)
            if got is None:
                return
            for k in opponents_waits(got[0], melds, me):
                hits[k] += 1
        risk = view._ev_risk()
        held = [k for k in range(34) if view.hand[k] > 0]
        for k in held:
            self.rows.append((k in truth, hits[k] / self.a.samples, risk[k]))

    def claim(self, view, tile, options):
        return view.builtin("ev")

    def win(self, view, tile, kind):
        return view.builtin("ev")


def summary(name: str, y: np.ndarray, p: np.ndarray) -> str:
    brier = float(np.mean((p - y) ** 2))
    pos, neg = p[y == 1], p[y == 0]
    auc = mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg)) if len(pos) and len(neg) else float("nan")
    return f"{name:8s} Brier {brier:.4f}  AUC {auc:.3f}  mean estimate {p.mean():.4f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="wanzai", choices=("wanzai",))
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--read", type=float, default=1.0)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--from", dest="from_discards", type=int, default=3)
    ap.add_argument("--seed", type=int, default=202)
    ap.add_argument("--peek", type=int, default=0, help="2: the sampler climbs to each seat's true shanten")
    a = ap.parse_args()
    rules = Rules.load(a.rules)
    rows: list = []
    for h in range(a.hands):
        players = ["ev"] * 4
        players[h % 4] = Recorder(a, rows)
        game.play(rules, seed=a.seed, hand_index=h, players=tuple(players), log=False)
    arr = np.array(rows, dtype=float)
    y = arr[:, 0]
    print(f"# {a.rules}, {a.hands} hands of 4 x ev, seed {a.seed}; {len(rows)} (turn, held kind) rows, "
          f"sampler: {a.samples} samples, read {a.read:g}, steps {a.steps}")
    print(f"truth    base rate {y.mean():.4f} (a held kind some other seat waits on)")
    print(summary("sampler", y, arr[:, 1]))
    print(summary("ev", y, arr[:, 2]))
    print("AUC: Mann-Whitney U (scipy.stats.mannwhitneyu) / (positives x negatives)")


if __name__ == "__main__":
    main()

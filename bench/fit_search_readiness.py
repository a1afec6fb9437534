"""Fit the search player's opponent model: how ready (shanten) a seat's concealed hand is,
given what everyone sees of it (its melds and the discards it has made), in self-play.

    python bench/fit_search_readiness.py --rules wanzai --hands 3000 [--players ev]

A Python seat plays as the built-in (view.builtin, so the hands are the built-in's own) and
at each of its turns records (melds, discards, shanten) of the three other seats (a fit
shim reads the hidden hands).  Prints, per (melds 0..4, discard bucket), the share of
observations at shanten 0, 1, 2, 3, 4+ (Laplace-smoothed counts, so no cell is zero), as
the C table mjsim_ready_<game> of core/include/_search_ready.h (the search player's READY_<GAME>).
"""
from __future__ import annotations

import argparse

import numpy as np

from mjsim.play import game
from mjsim.players import Player
from mjsim.rulesets.rules import Rules

BUCKETS = (0, 3, 6, 9, 12)       # discards made: 0-2, 3-5, 6-8, 9-11, 12+
N_SH = 5                         # shanten 0, 1, 2, 3, 4 or more


def bucket(discards: int) -> int:
    return sum(discards >= b for b in BUCKETS) - 1


class Recorder(Player):
    def __init__(self, name, counts):
        self.name, self.counts = name, counts

    def turn(self, view, options):
        for q, (melds, discards, sh) in enumerate(view._readiness()):
            if q != view.seat:
                self.counts[min(melds, 4), bucket(discards), min(max(sh, 0), N_SH - 1)] += 1
        return view.builtin(self.name)

    def claim(self, view, tile, options):
        return view.builtin(self.name)

    def win(self, view, tile, kind):
        return view.builtin(self.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="wanzai")
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--players", default="ev")
    ap.add_argument("--seed", type=int, default=101)
    a = ap.parse_args()
    rules = Rules.load(a.rules)
    counts = np.ones((5, len(BUCKETS), N_SH))     # Laplace smoothing
    for h in range(a.hands):
        seat = h % 4
        players = [a.players] * 4
        players[seat] = Recorder(a.players, counts)
        game.play(rules, seed=a.seed, hand_index=h, players=tuple(players), log=False)
    share = counts / counts.sum(axis=2, keepdims=True)
    print(f"# {a.rules}, {a.hands} hands of 4 x {a.players}, seed {a.seed}: "
          f"{int(counts.sum() - counts.size)} observations")
    print("# [melds][discard bucket][shanten 0..4+]")
    for m in range(5):
        rows = ", ".join("{" + ", ".join(f"{x:.3f}" for x in share[m, b]) + "}" for b in range(len(BUCKETS)))
        print(f"    {{{rows}}},   # {m} melds (n = {int(counts[m].sum() - counts[m].size)})")


if __name__ == "__main__":
    main()

"""Digests of whole datasets, to show that a change to the native core changed no decision.

    python bench/decisions_digest.py --hands 100000 > before.txt
    (change, rebuild)
    python bench/decisions_digest.py --hands 100000 | diff before.txt -

One line per (game, players): the sha256 of every array of the hands, wins and payments
tables of hands [0, N) with seed 0 in sessions of 16.  tests/test_same_decisions.py keeps
the digests of a smaller sample.
"""
from __future__ import annotations

import argparse

from mjsim.play.game import chunk_digest
from mjsim.rulesets.rules import Rules

PLAYER_SETS = {
    "random": ("random",) * 4,
    "greedy": ("greedy",) * 4,
    "greedy_v1": ("greedy_v1",) * 4,
    "ev": ("ev",) * 4,
    "mixed": ("ev", "greedy", "greedy_v1", "random"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", default="wanzai,anhua")
    ap.add_argument("--players", default=",".join(PLAYER_SETS))
    a = ap.parse_args()
    for game in a.games.split(","):
        rules = Rules.load(game)
        for name in a.players.split(","):
            digest = chunk_digest(rules, PLAYER_SETS[name], a.seed, 0, a.hands, 16)
            print(f"{game} {name} {a.hands} {digest}", flush=True)


if __name__ == "__main__":
    main()

"""Where the search player departs from ev: the decisions a distilled fast player would learn.

    python bench/search_deviations.py --hands 400 [--seed 77] [--examples 10]

One Python seat in turn (hand h: seat h % 4) asks both the built-in ev and the search player
(its default options: a Python seat's built-ins play with the defaults) at every decision
and plays search's answer; the other seats play ev.  Prints how often they differ at turns,
claims and wins on a discard, and for differing discards how the two choices compare: the
shanten left, the tiles that would lower it (copies not yet visible to the seat), and ev's
deal-in risk of each.  Shanten and improving tiles are tests/reference.py's (every Wanzai
form).  Wanzai only: the reference's Anhua shanten needs the wild indicator, and nothing
here needs it yet.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import reference  # noqa: E402  (the deliberately simple shanten of tests/reference.py)

from mjsim import tiles  # noqa: E402
from mjsim.play import game  # noqa: E402
from mjsim.players import Player  # noqa: E402
from mjsim.rulesets.rules import Rules  # noqa: E402


def improving(hand13, melds, seen, held) -> tuple[int, int]:
    """(shanten of the 13 tiles, copies not visible to the seat of the kinds that lower it
    when drawn and the best tile is thrown)."""
    now = reference.wanzai_shanten(hand13, melds)
    copies = 0
    for k in range(34):
        left = 4 - seen[k] - held[k]
        if left <= 0:
            continue
        h = list(hand13)
        h[k] += 1
        if any(reference.wanzai_shanten([h[j] - (j == d) for j in range(34)], melds) < now
               for d in range(34) if h[d] > 0):
            copies += left
    return now, copies


class Compare(Player):
    """Answers as the search player and records where ev would have answered otherwise."""

    def __init__(self, name: str):
        self.name = name
        self.turns = self.claims = self.wins = 0
        self.turn_diffs: list = []
        self.claim_diffs: list = []
        self.win_diffs: list = []

    def turn(self, view, options):
        self.turns += 1
        ev, search = view.builtin("ev"), view.builtin(self.name)
        if ev != search:
            self.turn_diffs.append(self.describe(view, ev, search))
        return search

    def describe(self, view, ev, search):
        if ev[0] != "discard" or search[0] != "discard":
            return (ev, search, None)
        hand, melds, seen, risk = view.hand, view.melds[view.seat], view.seen, view._ev_risk()
        sides = []
        for _, t in (ev, search):
            left = list(hand)
            left[t] -= 1
            sides.append((t, *improving(left, melds, seen, hand), risk[t]))
        return (ev, search, (list(hand), len(melds), sides))

    def claim(self, view, tile, options):
        self.claims += 1
        ev, search = view.builtin("ev"), view.builtin(self.name)
        if ev != search:
            self.claim_diffs.append((tile, self.call_name(ev, options), self.call_name(search, options)))
        return search

    @staticmethod
    def call_name(answer, options) -> str:
        """'pass', or the call offered at that index ('pung', 'chow', 'kong'; an honour
        chow is 'honour chow')."""
        if answer is None:
            return "pass"
        call = options[answer]
        if call[0] == "chow" and min(call[1:]) >= 27:
            return "honour chow"
        return call[0]

    def win(self, view, tile, kind):
        self.wins += kind == "discard"
        ev, search = view.builtin("ev"), view.builtin(self.name)
        if ev != search:
            self.win_diffs.append((tile, ev, search))
        return search


def report(c: Compare, examples: int) -> None:
    print(f"turns {c.turns}: search differs on {len(c.turn_diffs)} ({100 * len(c.turn_diffs) / max(c.turns, 1):.1f}%)")
    kinds = collections.Counter()
    for ev, search, detail in c.turn_diffs:
        if detail is None:
            kinds[f"{ev[0]} -> {search[0]}"] += 1
            continue
        (_, sh_e, cp_e, r_e), (_, sh_s, cp_s, r_s) = detail[2]
        if sh_s != sh_e:
            kinds["discard: search leaves a " + ("higher" if sh_s > sh_e else "lower") + " shanten"] += 1
        else:
            kinds["discard, same shanten: search keeps " + ("more" if cp_s > cp_e else "fewer" if cp_s < cp_e else "as many")
                  + " improving tiles; ev rates its tile " + ("safer" if r_s < r_e - 1e-12 else "riskier" if r_s > r_e + 1e-12 else "as safe")] += 1
    for text, n in kinds.most_common():
        print(f"  {n:5d}  {text}")
    print(f"claims {c.claims}: search differs on {len(c.claim_diffs)}")
    for (ev, search), n in collections.Counter((e, s) for _, e, s in c.claim_diffs).most_common():
        print(f"  {n:5d}  ev {ev}, search {search}")
    print(f"wins on a discard {c.wins}: search differs on {len(c.win_diffs)}")
    shown = [d for d in c.turn_diffs if d[2] is not None][:examples]
    if shown:
        print("examples (hand before the discard | each choice: tile, shanten, improving copies, ev's risk):")
    for ev, search, (hand, n_melds, sides) in shown:
        e, s = ([tiles.kind_name(t), sh, cp, f"{r:.3f}"] for t, sh, cp, r in sides)
        print(f"  {tiles.format_tiles(tiles.from_counts(hand))} (+{n_melds} melds) | ev {e} | search {s}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--examples", type=int, default=10)
    a = ap.parse_args()
    rules = Rules.load("wanzai")
    compare = Compare("search")
    for h in range(a.hands):
        players = ["ev"] * 4
        players[h % 4] = compare
        game.play(rules, seed=a.seed, hand_index=h, players=tuple(players))
    print(f"# wanzai, {a.hands} hands, seed {a.seed}: one seat plays search against 3 x ev")
    report(compare, a.examples)


if __name__ == "__main__":
    main()

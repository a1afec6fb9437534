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

    python bench/search_deviations.py --hands 6000 --seed 91 --fit-claims

also asks whether search's claims could be learned from what the table shows: every claim
the seat is offered becomes a row of features (ev's answer; the shanten now and the change
each offered kind of call would make to it, after the call's best discard; an honour tile;
the seat's melds, discards, pairs and honours; the opponents' melds; tiles left in the
wall) labelled with search's answer (call or pass).  A gradient-boosted classifier
(scikit-learn's HistGradientBoostingClassifier, 5-fold cross-validation grouped by blocks
of up to 200 claims) predicts it; printed: how often its prediction matches search's, against
how often ev's answer does, and how many of ev's answers it would overturn, rightly.
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


def after_call(hand, melds, tile, call) -> int:
    """Shanten after making `call` (an offered option) on `tile` and, unless it is a kong,
    the best discard."""
    h = list(hand)
    if call[0] == "chow":
        for k in call[1:]:
            h[k] -= 1
        meld = ("chow", sorted([tile, *call[1:]]))
    else:
        size = 4 if call[0] == "kong" else 3
        h[tile] -= size - 1
        meld = (call[0], [tile] * size)
    melds = list(melds) + [meld]
    if call[0] == "kong":
        return reference.wanzai_shanten(h, melds)
    best = 99
    for d in range(34):
        if h[d]:
            h[d] -= 1
            best = min(best, reference.wanzai_shanten(h, melds))
            h[d] += 1
    return best


CLAIM_FEATURES = ("ev calls", "shanten", "chow change", "pung change", "kong change", "honour",
                  "melds", "discards", "pairs", "honours held", "most opponent melds",
                  "opponent melds", "wall")


def claim_features(view, tile, options, ev) -> list[float]:
    """CLAIM_FEATURES of a claim offered to the view's seat: what the table shows it, and
    ev's answer (a change is 9 when no call of that kind is offered)."""
    hand, melds, s = list(view.hand), view.melds[view.seat], view.seat
    now = reference.wanzai_shanten(hand, melds)
    change = {"chow": 9, "pung": 9, "kong": 9}
    for call in options:
        change[call[0]] = min(change[call[0]], after_call(hand, melds, tile, call) - now)
    opp = [len(view.melds[(s + i) % 4]) for i in (1, 2, 3)]
    return [ev is not None, now, change["chow"], change["pung"], change["kong"], tile >= 27,
            len(melds), len(view.discards[s]), sum(n >= 2 for n in hand), sum(hand[27:]),
            max(opp), sum(opp), view.wall_left]


def fit_claims(rows) -> None:
    """Can search's claims be predicted from CLAIM_FEATURES better than by ev's answer?"""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import GroupKFold, cross_val_predict

    X = np.array([f for f, _ in rows], dtype=float)
    y = np.array([calls for _, calls in rows])
    ev = X[:, 0] > 0
    if len(y) < 50 or y.all() or not y.any():
        print(f"claims fitted {len(y)}: too few to fit")
        return
    groups = np.arange(len(y)) // min(200, len(y) // 5)
    model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                           min_samples_leaf=40, random_state=0)
    p = cross_val_predict(model, X, y, cv=GroupKFold(n_splits=5),
                          groups=groups, method="predict_proba")[:, 1]
    pred = p > 0.5
    flips = pred != ev
    print(f"claims fitted {len(y)}: search calls on {y.mean():.1%}, ev on {ev.mean():.1%}; "
          f"ev's answer is search's on {(ev == y).mean():.2%}, the model's on {(pred == y).mean():.2%} "
          f"(HistGradientBoostingClassifier, 5-fold cross-validation grouped by blocks of up to 200 claims)")
    print(f"  the model overturns ev on {flips.sum()} claims, rightly on {(flips & (pred == y)).sum()}")
    print(f"  features: {', '.join(CLAIM_FEATURES)}")


def is_shisanlan(hand, melds, tile) -> bool:
    """Would winning on `tile` make a 13-lan (tests/reference.py's rule, no melds declared)?"""
    counts = list(hand)
    counts[tile] += 1
    return not melds and reference._is_shisanlan(tuple(counts))


class Compare(Player):
    """Answers as the search player and records where ev would have answered otherwise."""

    def __init__(self, name: str):
        self.name = name
        self.turns = self.claims = self.wins = 0
        self.turn_diffs: list = []
        self.claim_diffs: list = []
        self.win_diffs: list = []
        self.lan_wins = 0                        # wins on a discard that would be a 13-lan
        self.claim_rows: list | None = None     # (features, search calls) per claim, if fitting

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
        if self.claim_rows is not None:
            self.claim_rows.append((claim_features(view, tile, options, ev), search is not None))
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
        lan = is_shisanlan(view.hand, view.melds[view.seat], tile)
        if kind == "discard":
            self.lan_wins += lan
        if ev != search:
            self.win_diffs.append((tile, ev, search, lan))
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
    print(f"wins on a discard {c.wins} ({c.lan_wins} of them 13-lan): search differs on {len(c.win_diffs)}")
    counts = collections.Counter((bool(e), bool(s)) for _, e, s, _ in c.win_diffs)
    lan = collections.Counter((bool(e), bool(s)) for _, e, s, is_lan in c.win_diffs if is_lan)
    for (ev, search), n in counts.most_common():
        print(f"  {n:5d}  ev {'takes' if ev else 'passes'}, search {'takes' if search else 'passes'}"
              f" ({lan[ev, search]} of them 13-lan)")
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
    ap.add_argument("--fit-claims", action="store_true",
                    help="also fit a classifier of search's claims on what the table shows")
    a = ap.parse_args()
    rules = Rules.load("wanzai")
    compare = Compare("search")
    if a.fit_claims:
        compare.claim_rows = []
    for h in range(a.hands):
        players = ["ev"] * 4
        players[h % 4] = compare
        game.play(rules, seed=a.seed, hand_index=h, players=tuple(players))
    print(f"# wanzai, {a.hands} hands, seed {a.seed}: one seat plays search against 3 x ev")
    report(compare, a.examples)
    if a.fit_claims:
        fit_claims(compare.claim_rows)


if __name__ == "__main__":
    main()

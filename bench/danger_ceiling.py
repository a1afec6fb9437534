"""How much better could ev rank its dangerous discards from what the table shows?

ev's danger model (players/_ev_danger.pxi) is two logistics: each opponent's chance of
being ready, times the chance a ready seat waits on the kind.  This plays `--hands` hands
of 4 x ev Wanzai and, at every discard, for each opponent and each kind the discarding seat
holds, records ev's own features of that pair, more of what the table shows (below), and
the truth: the opponent is ready and wins on that kind.  Every fourth hand is held out.
On it, it scores the ranking of the dangerous pairs (AUC, scikit-learn's roc_auc_score)
and the log loss of:

- ev's shipped logistics, as ev multiplies them for one opponent (its `passed` and
  `wait_class` options left out);
- a gradient-boosted tree model (scikit-learn's HistGradientBoostingClassifier, early
  stopping on a tenth of the training rows) on ev's features: what a more flexible model
  gets from the same numbers;
- the same on ev's features and the extra ones: how much the table shows beyond them.

Extra features: when the opponent discarded the kind and its neighbours (recency), the
kind passed by the others since that opponent's last discard, its recent and early
discards in the kind's suit, the copies of each neighbour on the table, and whether its
discards were the tile it had just drawn (the last one, the last three, the run of them,
all).  The gap between the first and the last row bounds what a better danger model of
this kind could gain.

    python bench/danger_ceiling.py --hands 4000
"""
from __future__ import annotations

import argparse
import collections
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy.special import expit

from mjsim import _core
from mjsim.play import engine, game
from mjsim.players import _ev, ev
from mjsim.rulesets.rules import Rules
from mjsim.run import evfit

N_TEN, N_WAIT = 8, 20
EXTRA = ("own_recency", "passed_since", "others_discarded", "near1_recency", "near2_recency",
         "near3_recency", "suit_last3", "suit_last6", "suit_first5", "seen_minus2", "seen_minus1",
         "seen_plus1", "seen_plus2", "melds", "pool", "live", "honour", "rank",
         "drawn_last", "drawn_last3", "drawn_run", "drawn_all")


def _drawn_flags(raw) -> list[int]:
    """Per discard of the hand, in order: 1 when it is the kind its seat had just drawn."""
    last = [-1] * 4
    flags = []
    for etype, s, t, _aux, _value in raw["events"]:
        if etype == evfit.EV_DRAW:
            last[s] = t
        elif etype == evfit.EV_DISCARD:
            flags.append(int(t == last[s]))
            last[s] = -1
        elif etype in (evfit.EV_PUNG, evfit.EV_CHOW, evfit.EV_KONG):
            last[s] = -1
    return flags


def _recency(own: list[int], match) -> float:
    """How late in the opponent's discards the last one matching was made (0: none)."""
    best = 0.0
    for j, t in enumerate(own):
        if match(t):
            best = (j + 1) / len(own)
    return best


class _Opponent:
    """What the table shows of one opponent's discards, gathered once per discard seen."""

    def __init__(self, o: int, timeline):
        self.own = [t for (_, s, t, _) in timeline if s == o]
        self.drawn = [d for (_, s, _, d) in timeline if s == o]
        last_own = max((g for (g, s, _, _) in timeline if s == o), default=-1)
        self.passed = {t for (g, s, t, _) in timeline if s != o and g > last_own}
        self.by_others = collections.Counter(t for (_, s, t, _) in timeline if s != o)
        run = 0
        for d in reversed(self.drawn):
            if not d:
                break
            run += 1
        self.drawn_feats = [self.drawn[-1] if self.drawn else 0, sum(self.drawn[-3:]), run, sum(self.drawn)]


def _extra(view: _Opponent, k: int, seen, live, q) -> list[float]:
    own = view.own
    f = [_recency(own, lambda t: t == k), float(k in view.passed), float(view.by_others[k])]
    if k < 27:
        r, suit = k % 9, k // 9
        in_suit = lambda t: t < 27 and t // 9 == suit  # noqa: E731
        f += [_recency(own, lambda t, d=d: in_suit(t) and abs(t % 9 - r) == d) for d in (1, 2, 3)]
        f += [sum(map(in_suit, own[-3:])), sum(map(in_suit, own[-6:])), sum(map(in_suit, own[:5]))]
        f += [seen[k + d] if 0 <= r + d <= 8 else -1 for d in (-2, -1, 1, 2)]
    else:
        f += [0.0] * 10
    return f + [q.n_melds, len(q.pool), live, float(k >= 27), k % 9 if k < 27 else 9 + (k >= 31)] + view.drawn_feats


def rows(args):
    """(X, y, hand index) of hands [start, stop): ev's tenpai and wait features, the extras."""
    seed, start, stop = args
    rules = Rules.load("wanzai")
    native = game._native(rules, ["ev"] * 4)
    cfg = engine.core_config(rules)
    X, y, hands = [], [], []
    for i in range(start, stop):
        raw = native.play(seed, i, i % 4, True)
        flags = _drawn_flags(raw)
        timeline = []
        for g, (s, t, _aux, seats, seen, live) in enumerate(evfit._replay(rules, raw)):
            p = seats[s]
            for j in range(1, 4):
                o = (s + j) & 3
                q = seats[o]
                tx, wx = _ev.danger_features(p.hand, seen, p.hidden, q.pool, q.n_discarded,
                                             q.n_melds, q.suit_mask, live)
                ready = _core.shanten_hand(cfg, q.hand, q.info(), raw["indicator"]) == 0
                waits = set(_core.waits_hand(cfg, q.hand, q.info(), raw["indicator"])) if ready else ()
                view = _Opponent(o, timeline)
                for k, x in wx.items():
                    X.append(list(tx) + list(x) + _extra(view, k, seen, live, q))
                    y.append(int(k in waits))
                    hands.append(i)
            timeline.append((g, s, t, flags[g]))
    return np.array(X, float).reshape(-1, N_TEN + N_WAIT + len(EXTRA)), np.array(y, int), np.array(hands, int)


def _shipped(X: np.ndarray) -> np.ndarray:
    """ev's P(ready) x P(waits on the kind | ready) with the shipped coefficients."""
    model = ev.load_model("wanzai")
    return expit(X[:, :N_TEN] @ np.array(model["tenpai"])) * expit(X[:, N_TEN:N_TEN + N_WAIT] @ np.array(model["wait"]))


def main() -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import log_loss, roc_auc_score

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    t0 = time.time()
    step = max(1, min(100, a.hands // (2 * a.workers)))
    jobs = [(a.seed, s, min(s + step, a.hands)) for s in range(0, a.hands, step)]
    with ProcessPoolExecutor(a.workers) as pool:
        parts = list(pool.map(rows, jobs))
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    hands = np.concatenate([p[2] for p in parts])
    test = hands % 4 == 0
    train = ~test
    print(f"4x ev Wanzai, seed {a.seed}, {a.hands} hands: {len(y):,} (opponent, held kind) rows, "
          f"{test.sum():,} held out (every 4th hand); deal-in base rate {y[test].mean():.4f}")
    scored = [("ev's logistics (shipped)", _shipped(X[test]))]
    for name, cols in (("trees on ev's features", slice(0, N_TEN + N_WAIT)),
                       ("trees on ev's + extra features", slice(0, X.shape[1]))):
        clf = HistGradientBoostingClassifier(max_iter=300, max_leaf_nodes=63, early_stopping=True,
                                             validation_fraction=0.1, random_state=0)
        clf.fit(X[train][:, cols], y[train])
        scored.append((name, clf.predict_proba(X[test][:, cols])[:, 1]))
    for name, p in scored:
        p = np.clip(p, 1e-9, 1 - 1e-9)
        print(f"{name:<32} AUC {roc_auc_score(y[test], p):.4f}  log loss {log_loss(y[test], p):.5f}  "
              f"mean {p.mean():.4f}")
    print("AUC: scikit-learn roc_auc_score on the held-out rows; trees: HistGradientBoostingClassifier "
          f"(300 iterations at most, 63 leaves, early stopping); {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()

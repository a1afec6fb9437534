"""Random danger-model rows and random tables for the ev player's danger tests
(tests/test_ev_features.py, tests/test_ev.py)."""
from __future__ import annotations

import numpy as np

from mjsim.players import _ev
from mjsim.players import ev as evplayer


def danger_row(seed):
    """A model-1 danger row with random tenpai and wait weights (fold 1), and a function
    giving each opponent's share of the risk of each kind: P(tenpai) x P(waits on it), each
    the model's logistic of the features the player computes."""
    rng = np.random.default_rng(seed)
    row = [0.0] * evplayer.N_PLAYER_OPTS
    row[evplayer.OPT_FOLD], row[evplayer.OPT_DANGER] = 1.0, 1.0
    tw = rng.normal(0, 0.5, evplayer.N_TEN_F)
    ww = rng.normal(0, 0.5, evplayer.N_WAIT_F)
    row[evplayer.OPT_TENPAI: evplayer.OPT_TENPAI + 4] = tw[:4]
    row[evplayer.OPT_TENPAI_HI: evplayer.OPT_TENPAI_HI + 4] = tw[4:]
    row[evplayer.OPT_WAIT: evplayer.OPT_WAIT + evplayer.N_WAIT_F] = ww
    sig = lambda z: 1 / (1 + np.exp(-z))

    def shares(hand, opp, live=40, seen=(0,) * 34):
        tx, wx = _ev.danger_features(hand, list(seen), [0] * 34, *opp, live)
        return {k: sig(tw @ tx) * sig(ww @ np.array(x)) for k, x in wx.items()}
    return row, shares


def random_table(rng, min_live=0):
    """A random 14-tile hand, tiles in sight, three opponents (pool, discards, melds, suit
    mask) and a live wall, as the danger shims take them."""
    wall = rng.permutation(np.repeat(np.arange(34), 4))
    hand = np.bincount(wall[:14], minlength=34).tolist()
    seen = np.bincount(wall[14:14 + int(rng.integers(0, 30))], minlength=34).tolist()
    opps = [(list(wall[60 + 10 * i: 60 + 10 * i + int(rng.integers(0, 10))]), int(rng.integers(0, 15)),
             int(rng.integers(0, 4)), int(rng.integers(0, 16))) for i in range(3)]
    return hand, seen, opps, int(rng.integers(min_live, 80))

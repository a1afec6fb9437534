"""Fit the `ev` player's model by self-play (`mjsim fit-ev`).

Hands are played with the native loop and their event logs replayed here, so that at every
ordinary discard the fit sees what the discarding seat saw:

- win model: the seat's 13-tile hand after the discard -> shanten d (best form), useful
  tiles u (unseen copies that lower it), live tiles left L, and (Anhua) whether the hand
  keeps a wild (it can then only self-draw); label: the seat wins this hand.  Logistic
  regression (statsmodels Logit, maximum likelihood) with, per d in 0..5 (5 = five or
  more), an intercept and slopes on log(1 + u) and L/100, plus one self-only term.  d and u
  are the standard form's; a win in any standard hand (大七對 included) is its label.  A
  row with few wins, or above the row before it, is that row one step further away
  (_settle_far_rows).
- per form (evplayer.FITTED_FORMS: pairs, 十三爛, 清一色, 大七對): an intercept and a slope
  on that base logit, fitted on the states where the form is no further from a win than
  the standard form, labelled by wins in the form.  全求人 has none: it is the standard
  form's own hands at four exposed melds (the same distance, useful tiles and wins).
- tenpai model: each opponent's shanten at that moment; logistic regression of
  "tenpai" on its discard count and meld count.
- wait table: for each tenpai opponent, does the discarded tile complete its hand (a win
  on that discard), by tile class (honor or not) x (in that opponent's discards or not) x
  (copies the discarder could see, 0..4); each cell is a rate shrunk toward the overall
  rate with a prior weight of 20 samples.
- self-draw share of wins and the mean discard-win payment relative to the standard
  form's discard value (the deal-in loss).

The result is one JSON entry per game, the format of src/mjsim/data/ev_model.json.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from mjsim import _core
from mjsim.play import engine
from mjsim.players import ev as evplayer
from mjsim.play import game
from mjsim.players import _ev
from mjsim.rulesets.rules import Rules
from mjsim.vocab import EVENT_NAMES, KONG_NAMES, PROPERTIES

# the event and kong codes of the native log, by name (mjsim.vocab)
EV_DRAW, EV_DISCARD, EV_PUNG, EV_CHOW, EV_KONG, EV_INDICATOR, EV_BUZHANG = (
    EVENT_NAMES.index(n) for n in ("draw", "discard", "pung", "chow", "kong", "indicator", "buzhang"))
KONG_ADDED, KONG_EXPOSED, KONG_CONCEALED = (KONG_NAMES.index(n) for n in ("added", "exposed", "concealed"))
SELF_KINDS = {"self_draw", "gangshanghua"}
WIN_INSTANT = 5
# property bits of a win (mjsim.vocab.PROPERTIES)
PR_QINGYISE, PR_XIAOQIDUI = PROPERTIES.index("qingyise"), PROPERTIES.index("xiaoqidui")
F_STD, F_PAIRS, F_LAN, F_QYS, F_DQD, F_QQR = range(len(evplayer.FORMS))
WANZAI_FORM = {"shisanlan": F_LAN, "qixing_shisanlan": F_LAN, "daqidui": F_DQD,
               "qingyise_daqidui": F_DQD}


def _form_of(game_name: str, pattern: int, props: int) -> int:
    """The form a win was made in: pairs, 十三爛, 大七對 or standard (清一色 is counted
    apart; a 全求人 is a standard hand at four exposed melds)."""
    if game_name == "anhua":
        return F_PAIRS if (props >> PR_XIAOQIDUI) & 1 else F_STD
    name = _core.PATTERNS[pattern]
    if "qixiaodui" in name:
        return F_PAIRS
    return WANZAI_FORM.get(name, F_STD)


class _Seat:
    __slots__ = ("hand", "meld_counts", "n_melds", "chow", "ckong", "suit_mask", "hidden", "pool",
                 "n_discarded")

    def __init__(self, tiles):
        self.hand = [0] * 34
        for t in tiles:
            self.hand[t] += 1
        self.meld_counts = [0] * 34
        self.n_melds = 0
        self.chow = self.ckong = False
        self.suit_mask = 0
        self.hidden = [0] * 34
        self.pool: list[int] = []
        self.n_discarded = 0

    def meld(self, tiles, chow=False, ckong=False):
        self.n_melds += 1
        self.chow |= chow
        self.ckong |= ckong
        for t in tiles:
            self.meld_counts[t] += 1
            self.suit_mask |= 1 << min(t // 9, 3)

    def info(self):
        return (self.n_melds, self.chow, self.ckong, self.suit_mask, self.meld_counts)


def _replay(rules: Rules, raw: dict):
    """Walk one logged hand; yields (s, t, aux, seats, seen, live) at every discard, before
    it is made (seat s still holds t), then applies it."""
    anhua = rules.game == "anhua"
    n_tiles = 108 if anhua else 136
    seats = [_Seat(raw["opening"][s]) for s in range(4)]
    seen = [0] * 34
    live = n_tiles - 53
    for etype, s, t, aux, value in raw["events"]:
        if etype == EV_INDICATOR:
            seen[t] += 1
            live -= 1
        elif etype == EV_DRAW:
            seats[s].hand[t] += 1
            live -= 1
        elif etype == EV_BUZHANG:
            live -= aux
            for i in range(aux):
                seats[s].hand[(value >> (5 * i)) & 31] += 1
        elif etype == EV_PUNG:
            seats[s].hand[t] -= 2
            seen[t] += 2
            seats[aux].pool.pop()
            seats[s].meld([t] * 3)
        elif etype == EV_CHOW:
            a, b = value & 255, value >> 8
            seats[s].hand[a] -= 1
            seats[s].hand[b] -= 1
            seen[a] += 1
            seen[b] += 1
            seats[aux].pool.pop()
            seats[s].meld([a, b, t], chow=True)
        elif etype == EV_KONG:
            p = seats[s]
            if aux == KONG_ADDED:
                p.hand[t] -= 1
                seen[t] += 1
                p.meld_counts[t] += 1
            elif aux == KONG_EXPOSED:
                p.hand[t] -= 3
                seen[t] += 3
                seats[value].pool.pop()
                p.meld([t] * 4)
            else:
                p.hand[t] -= 4
                p.hidden[t] += 4
                p.meld([t] * 4, ckong=True)
        elif etype == EV_DISCARD:
            yield s, t, aux, seats, seen, live
            p = seats[s]
            p.hand[t] -= 1
            seen[t] += 1
            p.n_discarded += 1
            p.pool.append(t)   # a 補章 tile (aux 1) was put in the hand at EV_BUZHANG


def _records(rules: Rules, raw: dict, cfg, face_cfg):
    """(win rows, tenpai rows, wait rows) of one logged hand."""
    anhua = rules.game == "anhua"
    indicator = raw["indicator"]
    wilds = tuple(raw["wilds"])
    winners = {w[0]: _form_of(rules.game, w[3], w[4]) for w in raw["wins"] if w[7] != WIN_INSTANT}
    qys_winners = {w[0] for w in raw["wins"] if (w[4] >> PR_QINGYISE) & 1}
    win_rows, tenpai_rows, wait_rows = [], [], []
    for s, t, aux, seats, seen, live in _replay(rules, raw):
        p = seats[s]
        vis = min(4, seen[t] + p.hand[t] + p.hidden[t])
        if aux != 0:
            continue
        p.hand[t] -= 1
        seen[t] += 1
        forms, jokers = _ev.form_features(int(anhua), rules.get("pair_258", False), p.hand,
                                          p.info(), seen, p.hidden, indicator)
        if forms[F_QQR][0]:     # at four exposed melds the standard form's numbers are 全求人's
            forms[F_STD] = forms[F_QQR]
        row = [live, int(jokers > 0)]
        won = winners.get(s, -1)
        for f, (ok, d, u) in enumerate(forms):
            # a 大七對 is a standard hand too (pungs are melds): it counts for both
            row += [int(ok), d or 0, u or 0, int(won == f or (f == F_QYS and s in qys_winners)
                                                 or (f == F_STD and won == F_DQD))]
        win_rows.append(row)
        for i in range(1, 4):
            o = (s + i) & 3
            q = seats[o]
            sh_o = _core.shanten_hand(cfg, q.hand, q.info(), indicator)
            tenpai_rows.append((len(q.pool), q.n_melds, int(sh_o <= 0)))
            if sh_o == 0:
                q.hand[t] += 1
                if anhua:
                    cat_ok = _core_category(q.hand, wilds) <= 1
                    hit = cat_ok and _core.shanten_hand(face_cfg, q.hand, q.info(), -1) == -1
                else:
                    hit = _core.shanten_hand(cfg, q.hand, q.info(), indicator) == -1
                q.hand[t] -= 1
                wait_rows.append((int(t >= 27), int(t in q.pool), vis, int(hit)))
        p.hand[t] += 1
        seen[t] -= 1
    return win_rows, tenpai_rows, wait_rows


def _danger_records(rules: Rules, raw: dict, cfg, players):
    """Model-1 danger rows of one logged Wanzai hand: at every discard, for each opponent
    whose player is in `players` (None: any), its tenpai features and label, and if it is
    ready, the wait features of every kind the discarder holds with "it wins on that kind"."""
    indicator = raw["indicator"]
    ten_x, ten_y, wait_x, wait_y = [], [], [], []
    for s, t, aux, seats, seen, live in _replay(rules, raw):
        p = seats[s]
        for i in range(1, 4):
            o = (s + i) & 3
            if players is not None and o not in players:
                continue
            q = seats[o]
            tx, wx = _ev.danger_features(p.hand, seen, p.hidden, q.pool, q.n_discarded,
                                         q.n_melds, q.suit_mask, live)
            ready = _core.shanten_hand(cfg, q.hand, q.info(), indicator) == 0
            ten_x.append(tx)
            ten_y.append(int(ready))
            if ready:
                waits = set(_core.waits_hand(cfg, q.hand, q.info(), indicator))
                for k, x in wx.items():
                    wait_x.append(x)
                    wait_y.append(int(k in waits))
    return ten_x, ten_y, wait_x, wait_y


def danger_rows(rules: Rules, players, seed: int, start: int, stop: int, opponents=None,
                progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Model-1 danger rows (tenpai X, y, wait X, y) of hands [start, stop) of `players`
    (seed, hand index), from the opponents whose player name is in `opponents` (None: all).
    progress(done) after each hand, done counting from 1."""
    native = game._native(rules, list(players))
    cfg = engine.core_config(rules)
    seats = None if opponents is None else {i for i, name in enumerate(players) if name in opponents}
    rows = [[], [], [], []]
    for i in range(start, stop):
        raw = native.play(seed, i, i % 4, True)
        for acc, part in zip(rows, _danger_records(rules, raw, cfg, seats)):
            acc += part
        if progress is not None:
            progress(i - start + 1)
    return tuple(np.array(r, float) for r in rows)


def fit_danger(rules: Rules, hands: int = 4000, seed: int = 2024, players=("greedy",) * 4,
               opponents=("greedy",), progress=None) -> dict:
    """Fit the model-1 danger logistics (statsmodels Logit, maximum likelihood) on logged
    hands, from the opponents whose player name is in `opponents`.  The shipped model was
    fitted on 4x greedy; bench/refit_danger.py refits it on ev's own tables round after
    round (it settles in three rounds and loses money in the arena: docs/players/ev.md)."""
    if rules.game != "wanzai":
        raise ValueError("the feature danger model is fitted for Wanzai only")
    tx, ty, wx, wy = danger_rows(rules, players, seed, 0, hands, opponents, progress)
    return {"danger_model": 1,
            "tenpai": [round(float(x), 5) for x in _logit(tx, ty)],
            "wait": [round(float(x), 5) for x in _logit(wx, wy)],
            "danger_fitted_on": {"players": list(players), "opponents": list(opponents), "hands": hands,
                                 "seed": seed, "tenpai_samples": int(len(ty)), "wait_samples": int(len(wy))}}


def _core_category(hand, wilds) -> int:
    a, b = hand[wilds[0]], hand[wilds[1]]
    if a == 0 and b == 0:
        return 0
    if b == 4:
        return 3 if a <= 1 else (4 if a == 2 else 5)
    return 1 if a <= 2 and b <= 2 else 2


def _logit(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    import statsmodels.api as sm

    keep = X.std(axis=0) > 0
    keep |= np.all(X == 1, axis=0)
    coef = np.zeros(X.shape[1])
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    model = sm.Logit(y, X[:, keep])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            fit = model.fit(disp=0, maxiter=200)
        params = np.asarray(fit.params)
        if not np.all(np.isfinite(params)):
            raise ValueError
    except Exception:   # separation, no convergence or a singular design: lightly penalised
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            params = np.asarray(model.fit_regularized(alpha=1e-3, disp=0).params)
    coef[keep] = params
    return coef


def fit(rules: Rules, hands: int = 3000, seed: int = 12345, players=("ev",) * 4,
        progress=None) -> dict:
    """Self-play `hands` hands and fit the model entry for `rules.game`; in Wanzai also
    the feature danger model, on `hands` more hands of 4x greedy (seed + 1, mod 2^64), as the shipped
    model was.  progress(done) is called after each hand, done counting to
    `hands` (in Wanzai each of the two runs counts for half)."""
    phases = 2 if rules.game == "wanzai" else 1
    native = game._native(rules, list(players))
    cfg = engine.core_config(rules)
    face_cfg = cfg
    win_rows, tenpai_rows, wait_rows = [], [], []
    n_self = n_wins = 0
    disc_paid = []
    for i in range(hands):
        raw = native.play(seed, i, i % 4, True)
        w, t, q = _records(rules, raw, cfg, face_cfg)
        win_rows += w
        tenpai_rows += t
        wait_rows += q
        for win in raw["wins"]:
            kind = game.WIN_KINDS[win[7]]
            if kind == "instant":
                continue
            n_wins += 1
            n_self += kind in SELF_KINDS
            if kind == "discard":
                disc_paid.append(win[6])
        if progress is not None:
            progress((i + 1) // phases)
    entry = _fit_rows(rules, np.array(win_rows, float), np.array(tenpai_rows, float),
                      np.array(wait_rows, float), n_self / max(n_wins, 1),
                      float(np.mean(disc_paid)) if disc_paid else 1.0)
    if rules.game == "wanzai":
        entry.update(fit_danger(rules, hands=hands, seed=(seed + 1) % 2**64, progress=None if progress is None
                                else (lambda i: progress((hands + i) // 2))))
    return entry


def _design(live, self_only, d, u) -> np.ndarray:
    nd = evplayer.N_WIN_D
    d = np.minimum(np.maximum(d.astype(int), 0), nd - 1)
    X = np.zeros((len(d), 3 * nd + 1))
    for j in range(nd):
        m = d == j
        X[m, 3 * j] = 1
        X[m, 3 * j + 1] = np.log1p(u[m])
        X[m, 3 * j + 2] = live[m] / 100
    X[:, 3 * nd] = self_only
    return X


#: a distance row of the win model fitted on fewer wins than this is mostly noise: the
#: capped row (five or more from a win) under ev holds a few wins in tens of thousands of
#: states, and a logit that nearly separates them once gave P(win) near 1 at shanten 5
MIN_ROW_WINS = 30


def _settle_far_rows(c: np.ndarray, d: np.ndarray, u: np.ndarray, live: np.ndarray,
                     won: np.ndarray) -> np.ndarray:
    """The fitted win rows, each one further from a win kept below the row before: a row
    with fewer than MIN_ROW_WINS wins, or one that rates any of its own states (useful
    tiles, live wall) likelier to win than the row before would, becomes that row one
    step further away (its intercept 2 lower), as a row with no states at all does."""
    c = c.copy()
    for j in range(1, evplayer.N_WIN_D):
        at = d == j
        lu, lw = np.log1p(u[at]), live[at] / 100
        here = c[3 * j] + c[3 * j + 1] * lu + c[3 * j + 2] * lw
        before = c[3 * j - 3] + c[3 * j - 2] * lu + c[3 * j - 1] * lw
        if won[at].sum() < MIN_ROW_WINS or (here > before).any():
            c[3 * j: 3 * j + 3] = c[3 * j - 3: 3 * j]
            c[3 * j] -= 2.0
    return c


def _fit_rows(rules: Rules, win: np.ndarray, tenpai: np.ndarray, wait: np.ndarray,
              self_share: float, mean_discard_paid: float) -> dict:
    """win rows: live, self_only, then per form (open, d, u, won via it)."""
    nd = evplayer.N_WIN_D
    live, self_only = win[:, 0], win[:, 1]
    form = [win[:, 2 + 4 * f: 6 + 4 * f] for f in range(len(evplayer.FORMS))]
    # the base model: the standard form's distance and useful tiles
    ok_std, d_std, u_std, y_std = form[F_STD].T
    m = (u_std > 0) & (d_std >= 0)
    c = _logit(_design(live[m], self_only[m], d_std[m], u_std[m]), y_std[m])
    c = _settle_far_rows(c, np.minimum(d_std[m].astype(int), nd - 1), u_std[m], live[m], y_std[m])
    # every other form: intercept and slope on the base logit, from its own wins (全求人
    # is the standard form's hands, so it has no numbers of its own)
    forms = {"standard": [0.0, 1.0]}
    for name in evplayer.FITTED_FORMS:
        ok, df, uf, yf = form[evplayer.FORMS.index(name)].T
        # states where the form competes with the standard one (not further from a win):
        # its wins elsewhere are accidents of a hand played for something else
        m = (ok > 0) & (uf > 0) & (df >= 0) & (df <= d_std)
        if m.sum() < 50 or yf[m].sum() < 5:
            forms[name] = [-3.0, 1.0]     # too rare to fit: far below the standard form
            continue
        lp = _design(live[m], self_only[m], df[m], uf[m]) @ c
        a, b = _logit(np.column_stack([np.ones(m.sum()), lp]), yf[m])
        forms[name] = [round(float(a), 4), round(float(b), 4)]
    Xt = np.column_stack([np.ones(len(tenpai)), tenpai[:, 0], tenpai[:, 1]])
    ct = _logit(Xt, tenpai[:, 2])
    overall = wait[:, 3].mean() if len(wait) else 0.0
    cells = []
    for hon in (0, 1):
        for gen in (0, 1):
            for vis in range(5):
                m = (wait[:, 0] == hon) & (wait[:, 1] == gen) & (wait[:, 2] == vis)
                cells.append(float((wait[m, 3].sum() + 20 * overall) / (m.sum() + 20)))
    if rules.game == "anhua":
        ref = rules["base"] * rules["multipliers"]["yingzhuang"] * (14 / 9) ** rules["birds"]
    else:
        ref = rules["base"] * rules["values"]["pinghu"][0]
    return {
        "self_share": round(self_share, 4),
        "loss": round(mean_discard_paid / ref, 4),
        "win": [[round(float(x), 4) for x in c[3 * j: 3 * j + 3]] for j in range(nd)],
        "self_only": round(float(c[3 * nd]), 4),
        "tenpai": [round(float(x), 4) for x in ct],
        "wait": [round(x, 5) for x in cells],
        "forms": forms,
        "fitted_on": {"rules_hash": rules.hash, "decisions": int(len(win)),
                      "tenpai_samples": int(len(tenpai)), "wait_samples": int(len(wait))},
    }


TUNED = ("style", "form_shift", "note")


def read_existing(path: Path, game_name: str) -> dict:
    """The model file `path` as write() updates it ({} when there is none); ValueError
    naming the file when it cannot be updated (checked before a fit: fit-ev --out)."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"--out {path}: cannot be read ({e.strerror or e})") from None
    except ValueError as e:     # not JSON, or not UTF-8
        raise ValueError(f"--out {path}: exists and is not a model file (not JSON: {e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--out {path}: exists and is not a model file (it holds a JSON {type(data).__name__}, "
                         f"not an object of games)")
    if not isinstance(data.get(game_name, {}), dict):
        raise ValueError(f"--out {path}: its {game_name!r} entry is not an object of model fields")
    return data


def write(path: Path, game_name: str, entry: dict) -> None:
    """Write (or update) a model file with the fitted entry for one game; the tuned parts
    (style defaults, form shifts) of the entry already there, or else of the shipped
    model, are kept."""
    from mjsim.dataset.storage import write_output

    path = Path(path)
    data = read_existing(path, game_name)
    old = data.get(game_name) or evplayer.load_model(game_name)
    entry = dict(entry)
    for key in TUNED:
        if key in old:
            entry[key] = old[key]
    data[game_name] = entry
    write_output(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))

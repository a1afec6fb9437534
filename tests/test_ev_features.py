"""What the ev player computes from a hand and a table: per-form statistics (checked against
brute force), the forms in play, and the danger model's features and risk."""

from collections import Counter
from itertools import combinations
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjsim import Rules
from mjsim.play import engine
from mjsim.run import evfit
from mjsim.players import ev as evplayer
from mjsim.play import game
from mjsim.players import _ev
from mjsim.players import Player
from mjsim.tiles import kind_name, parse_tile, parse_tiles, to_counts
from danger_tables import danger_row, random_table


# ------------------------------------------------------------------ per-form statistics

def features(hand, melds=(), game_code=0, indicator=-1, seen=None):
    counts = to_counts(parse_tiles(hand))
    ms = engine.parse_melds("wanzai" if game_code == 0 else "anhua", list(melds))
    info = engine.meld_info(ms)
    seen = seen or [0] * 34
    return _ev.form_features(game_code, True, counts, info, seen, [0] * 34, indicator)


def test_form_features_wanzai():
    forms, jokers = features("123456789m1122z5p")
    assert len(forms) == len(evplayer.FORMS)
    (std_ok, std_d, std_u), (p_ok, p_d, p_u), (l_ok, _, _), (q_ok, q_d, q_u), dqd, qqr = forms
    assert jokers == 0 and std_ok and std_d == 0
    # waits 1z / 2z (two copies each unseen) and nothing else: 5p needs a partner first
    assert std_u == 4
    assert p_ok and p_d == engine_pairs_shanten("123456789m1122z5p")
    assert q_ok and q_d == 4 and not l_ok
    # tiles already seen are not useful
    seen = [0] * 34
    seen[parse_tile("1z")] = 2
    assert features("123456789m1122z5p", seen=seen)[0][0][2] == 2
    # 十三爛 distance and 七小對 tenpai
    forms, _ = features("147m258p369s1234z")
    assert forms[2] == (True, 0, 3 * 4)          # waits 5z 6z 7z, none seen
    forms, _ = features("1122m3344p5566s7z")
    assert forms[1] == (True, 0, 3)
    # melds close the concealed forms
    forms, _ = features("123456789m5p", melds=[("pung", "111z")])
    assert not forms[1][0] and not forms[2][0]


def engine_pairs_shanten(hand):
    c = Counter(parse_tiles(hand))
    pairs = sum(v // 2 for v in c.values())
    return 6 - pairs


def test_form_features_anhua_wilds_are_jokers():
    # indicator 1p: wilds 1p (type A) and 2p (type B)
    forms, jokers = features("123m456m789m25s1p2p", game_code=1, indicator=parse_tile("1p"))
    assert jokers == 2
    std = forms[0]
    assert std[0] and std[1] == engine.shanten(Rules.load("anhua"), "123m456m789m25s1p2p", wild="1p")
    assert not forms[2][0]                          # no 十三爛 in Anhua


F_DQD, F_QQR = evplayer.FORMS.index("daqidui"), evplayer.FORMS.index("quanqiuren")


def dqd_missing(counts, m):
    """Brute force: fewest tiles a 大七對 of m triplets and a pair (distinct kinds) still
    lacks, over every choice of kinds (kinds not held are interchangeable: m + 1 of them
    stand for all)."""
    held = [k for k in range(34) if counts[k]]
    cand = held + [k for k in range(34) if not counts[k]][:m + 1]
    best = 99
    for trips in combinations(cand, m):
        lack = sum(3 - min(counts[k], 3) for k in trips)
        for pair in cand:
            if pair not in trips:
                best = min(best, lack + 2 - min(counts[pair], 2))
    return best


def dqd_twin(counts, seen, m):
    """(shanten, useful tiles) of the 大七對 form by brute force, None when the player leaves
    it closed (more than four tiles missing)."""
    miss = dqd_missing(counts, m)
    if miss > 4:
        return None
    useful = 0
    for k in range(34):
        counts[k] += 1
        if dqd_missing(counts, m) < miss:
            useful += max(0, 4 - (counts[k] - 1) - seen[k])
        counts[k] -= 1
    return miss - 1, useful


@st.composite
def dqd_hands(draw, near):
    """A 3m+1 concealed part (m = 4 - melds) with 0..4 exposed pungs or kongs (sometimes a
    chow, which closes the form) and some tiles seen; `near`: a 大七對 short of a tile or two."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    left = [4] * 34
    n_melds = draw(st.integers(0, 4))
    melds = []
    for _ in range(n_melds):
        if rng.random() < 0.15:
            if rng.random() < 0.3:      # an honour run 東南西 or 中發白
                ks = rng.choice([[27, 28, 29], [31, 32, 33]])
            else:
                low = 9 * rng.randrange(3) + rng.randrange(7)
                ks = [low, low + 1, low + 2]
            if all(left[k] for k in ks):
                for k in ks:
                    left[k] -= 1
                melds.append(("chow", "".join(kind_name(k) for k in ks)))
                continue
        k = rng.choice([k for k in range(34) if left[k] == 4])
        kind = rng.choice(["pung", "pung", "kong", "concealed_kong"])
        left[k] -= 3 if kind == "pung" else 4
        melds.append((kind, kind_name(k) * (3 if kind == "pung" else 4)))
    m = 4 - len(melds)
    counts = [0] * 34
    if near:
        groups = rng.sample([k for k in range(34) if left[k] >= 3], m + 1)
        for i, k in enumerate(groups):
            counts[k] = 2 if i == m else 3
        for _ in range(rng.randrange(1, 3)):        # take one or two tiles away, add others
            counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
        while sum(counts) < 3 * m + 1:
            k = rng.randrange(34)
            if counts[k] < left[k]:
                counts[k] += 1
        while sum(counts) > 3 * m + 1:
            counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
    else:
        pool = [k for k in range(34) for _ in range(left[k])]
        # few kinds make pairs and pungs common enough for the form to be open
        kinds_ = rng.sample(range(34), rng.randrange(4, 12))
        pool = [k for k in pool if k in kinds_] or pool
        for k in rng.sample(pool, min(3 * m + 1, len(pool))):
            counts[k] += 1
        while sum(counts) < 3 * m + 1:
            k = rng.randrange(34)
            if counts[k] < left[k]:
                counts[k] += 1
    seen = [rng.randrange(0, left[k] - counts[k] + 1) if rng.random() < 0.3 else 0 for k in range(34)]
    return counts, melds, seen


def check_dqd(counts, melds, seen):
    ms = engine.parse_melds("wanzai", list(melds))
    info = engine.meld_info(ms)
    # exposed melds are on the table, a concealed kong is hidden: neither is unseen
    hidden = [0] * 34
    seen = list(seen)
    for m in ms:
        for k in m.tiles:
            (hidden if m.kind == "concealed_kong" else seen)[k] += 1
    forms, _ = _ev.form_features(0, False, counts, info, seen, hidden, -1)
    ok, d, u = forms[F_DQD]
    if info[1]:
        assert not ok                                 # a chow (or honour run) rules it out
        return
    want = dqd_twin(list(counts), [a + b for a, b in zip(seen, hidden)], 4 - len(melds))
    assert (want is not None) == ok, (counts, melds)
    if ok:
        assert (d, u) == want, (counts, melds)


@settings(max_examples=60, deadline=None)
@given(dqd_hands(near=False))
def test_daqidui_form_matches_brute_force_on_random_hands(case):
    check_dqd(*case)


@settings(max_examples=60, deadline=None)
@given(dqd_hands(near=True))
def test_daqidui_form_matches_brute_force_near_complete(case):
    check_dqd(*case)


def test_daqidui_and_quanqiuren_forms_on_known_hands():
    # two pungs and three pairs: two tiles short of 大七對; the pairs' 6 copies help
    forms, _ = features("555p99s44s88m5m", melds=[("pung", "111m")])
    assert forms[F_DQD] == (True, 1, 6) and not forms[F_QQR][0]
    # 大七對 tenpai on two pairs (four tiles), melds included; far from it, the form is closed
    forms, _ = features("147m258p369s1234z", melds=[])
    assert not forms[F_DQD][0]
    forms, _ = features("99s44s555p", melds=[("pung", "111m"), ("kong", "2222p")])
    assert forms[F_DQD] == (True, 0, 4)
    # a chow or an honour run closes it; a concealed kong keeps it
    forms, _ = features("99s44s555p", melds=[("chow", "123m"), ("kong", "2222p")])
    assert not forms[F_DQD][0]
    forms, _ = features("99s44s555p", melds=[("chow", "567z"), ("kong", "2222p")])
    assert not forms[F_DQD][0]
    forms, _ = features("99s44s555p", melds=[("concealed_kong", "1111m"), ("kong", "2222p")])
    assert forms[F_DQD] == (True, 0, 4)
    # four exposed melds: 全求人 is the standard form's single wait, which it replaces
    forms, _ = features("7s", melds=[("chow", "123m"), ("pung", "555p"), ("kong", "2222p"), ("pung", "999s")])
    assert forms[F_QQR] == (True, 0, 3) and not forms[0][0] and not forms[F_DQD][0]
    forms, _ = features("7s", melds=[("pung", "111m"), ("pung", "555p"), ("kong", "2222p"), ("pung", "999s")])
    assert forms[F_QQR] == (True, 0, 3) and forms[F_DQD] == (True, 0, 3)
    # a concealed kong breaks 全求人: the standard form stays
    forms, _ = features("7s", melds=[("concealed_kong", "1111m"), ("pung", "555p"), ("kong", "2222p"),
                                     ("pung", "999s")])
    assert not forms[F_QQR][0] and forms[0] == (True, 0, 3)


class ScriptedDealer(Player):
    """Discards `tile` first, then plays greedy; never claims or wins."""

    def __init__(self, tile):
        self.tile = parse_tile(tile)

    def turn(self, view, options):
        return ("discard", self.tile) if ("discard", self.tile) in options else view.builtin("greedy")

    def claim(self, view, tile, options):
        return None

    def win(self, view, tile, kind):
        return False


class PungThenAsk(Player):
    """Pungs the first tile it can, then plays (and records) what the built-in ev does."""

    def __init__(self):
        self.turns = []

    def claim(self, view, tile, options):
        return options.index(("pung",)) if ("pung",) in options and not self.turns else None

    def turn(self, view, options):
        choice = view.builtin("ev")
        self.turns.append((list(view.hand), choice))
        return choice

    def win(self, view, tile, kind):
        return True


def first_discard_after_pung(hand1, **overrides):
    """Seat 1 holds `hand1`, pungs the dealer's first discard (1m) and is asked for a discard:
    ev's answer (flat wall: the dealer's 14 tiles, then 13 for each seat, then the draws)."""
    rules = Rules.load("wanzai", wall_model="flat", **overrides)
    hands = [parse_tiles(t) for t in ("1m2p3p6p7p1z2z3z4z5z6z7z7z7z", hand1,
                                      "2s3s6s7s9s1p2p3p4p8p9p1s2s", "3s5s6s7s8s9p1p2p3p4p4s5s6p")]
    used = Counter(k for h in hands for k in h)
    wall = [k for h in hands for k in h] + [k for k in range(34) for _ in range(4 - used[k])]
    seat = PungThenAsk()
    game.play(rules, players=(ScriptedDealer("1m"), seat, "greedy", "greedy"), wall=wall, dealer=0)
    hand, (action, kind) = seat.turns[0]
    assert action == "discard" and sum(hand) == 11      # the turn right after the pung
    return kind_name(kind)


def test_ev_keeps_the_pungs_when_daqidui_pays():
    # after punging 1m: 555p 99s 44s 88m 45m.  Dropping a pair (9s) or the run (4m/5m) keep
    # the same standard shanten (1); the run is worth more there (3m 6m), the pairs keep
    # 大七對 a tile closer.  At the default 大七對 [3,3] ev breaks a pair, at [12,12] the run.
    hand = "11m555p99s44s88m45m"
    assert first_discard_after_pung(hand) in ("9s", "4s", "8m")
    assert first_discard_after_pung(hand, **{"values.daqidui": [12, 12]}) in ("4m", "5m")
    # all in 萬 (pung included) a 大七對 is worth 清一色大七對, and that value decides: 2m keeps
    # 555m 66m 88m (大七對 two from ready), 8m leaves it three away
    one_suit = "11m23455566788m"
    assert first_discard_after_pung(one_suit, **{"values.qingyise_daqidui": [60, 60]}) == "2m"
    low = {"values.qingyise_daqidui": [5, 5]}
    assert first_discard_after_pung(one_suit, **low) == "8m"
    assert first_discard_after_pung(one_suit, **low, **{"values.daqidui": [60, 60]}) == "8m"


@pytest.mark.parametrize("self_scoring, reaches_play", [("pinghu", False), ("quanqiuren", True)])
def test_ev_reads_the_quanqiuren_self_value_only_under_the_house_variant(self_scoring, reaches_play):
    # RULES §2.2: a self-drawn 全求人 is 平胡 by default, so values.quanqiuren[1] is unused
    # and cannot change a single decision; under quanqiuren_self = "quanqiuren" it is the
    # self-draw value, and ev's claims toward the form follow it
    def digest(self_value):
        rules = Rules.load("wanzai", quanqiuren_self=self_scoring,
                           **{"values.quanqiuren": [2, self_value]})
        return game.chunk_digest(rules, ("ev",) * 4, 5, 0, 600)

    assert (digest(1) != digest(20)) == reaches_play


# ------------------------------------------------------------------ the danger model

def kinds(text):
    return to_counts(parse_tiles(text))


def test_danger_features_read_the_opponents_pool():
    hand = kinds("1m4m9m5p8s1z5z")
    seen = kinds("1m5z5z5z")
    pool = parse_tiles("7m2z6z3s")       # 7m: 4m's suji; 2z: a wind, 6z: a dragon
    tx, wx = _ev.danger_features(hand, seen, [0] * 34, pool, 6, 1, 0b0010, 40)
    assert tx == pytest.approx([1, 0.6, 1, 0.4, 1, 2, 0, 0.36])   # last 3: 2z 6z 3s, one middle
    assert sorted(wx) == sorted(parse_tiles("1m4m9m5p8s1z5z"))
    one_m, four_m, nine_m = (wx[parse_tile(t)] for t in ("1m", "4m", "9m"))
    assert one_m[3] == 1 and one_m[4] == 0 and four_m[3] == four_m[4] == 0 and nine_m[3] == 1
    assert one_m[6] == pytest.approx(2 / 4)          # one in hand, one seen
    assert four_m[10] == 1 and four_m[8] == four_m[9] == 0   # 7m is three away
    assert one_m[8] == one_m[9] == one_m[10] == 0
    assert four_m[12] == pytest.approx(1 / 4) and four_m[18] == 0 and four_m[11] == 0
    five_p = wx[parse_tile("5p")]
    assert five_p[11] == 1 and five_p[18] == 1 and five_p[12] == 0   # melds in 筒, none discarded
    east, red = wx[parse_tile("1z")], wx[parse_tile("5z")]
    assert east[1] == 1 and east[2] == 0 and east[13] == 1     # one wind in its pool
    assert red[2] == 1 and red[13] == 1 and red[7] == 1          # 5z: all four in sight
    assert east[19] == 0 and red[19] == 0 and red[5] == 0
    assert wx[parse_tile("8s")][4] == 1 and wx[parse_tile("8s")][12] == pytest.approx(1 / 4)


def test_seat_risk_is_tenpai_times_wait_summed_over_opponents():
    row, shares = danger_row(4)
    rng = np.random.default_rng(4)
    for trial in range(20):
        hand, seen, opps, live = random_table(rng)
        risk = _ev.seat_risk(row, hand, seen, [0] * 34, opps, live)
        want = np.zeros(34)
        for opp in opps:
            for k, share in shares(hand, opp, live, seen).items():
                want[k] += share
        assert risk == pytest.approx(want.tolist(), abs=1e-12), trial
        assert all(risk[k] == 0 for k in range(34) if not hand[k])


def test_player_opts_danger_model_layout(monkeypatch):
    shipped = evplayer.load_model("wanzai")
    model = dict(shipped, danger_model=1, tenpai=[0.5 + i for i in range(evplayer.N_TEN_F)],
                 wait=[-0.25 * i for i in range(evplayer.N_WAIT_F)])
    monkeypatch.setattr(evplayer, "_read_model", lambda path=None, player="ev": {"wanzai": model})
    row = evplayer.player_opts("wanzai")
    assert row[evplayer.OPT_DANGER] == 1
    assert row[evplayer.OPT_TENPAI: evplayer.OPT_TENPAI + 4] + row[evplayer.OPT_TENPAI_HI:
                                                                   evplayer.OPT_TENPAI_HI + 4] == model["tenpai"]
    assert row[evplayer.OPT_WAIT: evplayer.OPT_WAIT + evplayer.N_WAIT_F] == model["wait"]
    model["tenpai"] = model["tenpai"][:3]
    with pytest.raises(evplayer.PlayerOptionError, match="danger model 1"):
        evplayer.player_opts("wanzai")
    model["danger_model"] = 2
    with pytest.raises(evplayer.PlayerOptionError, match="danger_model must be 0 or 1"):
        evplayer.player_opts("wanzai")
    monkeypatch.undo()
    assert evplayer.player_opts("anhua")[evplayer.OPT_DANGER] == 0


def test_fit_danger_learns_what_greedy_shows():
    entry = evfit.fit_danger(Rules.load("wanzai"), hands=150, seed=8)
    assert entry["danger_model"] == 1
    t, w = entry["tenpai"], entry["wait"]
    assert len(t) == evplayer.N_TEN_F and len(w) == evplayer.N_WAIT_F
    # later in the hand and with more melds a greedy seat is more often ready; a tile in
    # its own pool is one it let go, so seldom its wait
    assert t[1] + 2 * t[7] * 0.6 > 0 and t[2] > 0
    assert w[5] < -1
    assert entry["danger_fitted_on"]["wait_samples"] > 1000



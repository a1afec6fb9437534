"""The native hand loop under Anhua seven-wild (RULES §3): scripted walls for each rule,
invariants over seeded hands, the Python player protocol."""
import math
from collections import Counter

import numpy as np
import pytest

from mjsim import _core
from mjsim.play import engine
from mjsim.play import game
from mjsim.core import _testing
from mjsim.players import Builtin, Player
from mjsim.rulesets.rules import Rules
from mjsim.tiles import kind_name, parse_tile, parse_tiles
from pass_once import PassOnce

FLAT = Rules.load("anhua", wall_model="flat")
# indicator 9s: the wilds are 9s (A, three left) and 1s (B, 9 wraps to 1)
IND = "9s"


def flat_wall(hands, indicator=IND, live=""):
    """A 108-tile wall for the flat model: the four opening hands in dealing order (dealer
    14, then 13 each in play order; None = filler), the turned-up indicator, then the live
    draws in order (補章 tiles and birds are live tiles too).  Filler avoids the wild kinds
    and every scripted kind as long as it can."""
    scripted = [parse_tiles(h) for h in hands if h] + [[parse_tile(indicator)], parse_tiles(live)]
    left = Counter({k: 4 for k in range(27)})
    for ks in scripted:
        left.subtract(ks)
    assert min(left.values()) >= 0, "script uses a tile more than four times"
    ind = parse_tile(indicator)
    wild = {ind, ind + 1 if ind % 9 != 8 else ind - 8}
    named = {k for ks in scripted for k in ks}
    # one copy of each kind per round, ranks 1-4-7, 2-5-8, 3-6-9: filler hands stay far
    # from complete (no pairs, few runs), and draw scripted kinds as late as possible
    pool = sorted(((k, i) for k in range(27) for i in range(left[k])),
                  key=lambda ki: (ki[0] in wild, ki[0] in named, ki[1], ki[0] % 9 % 3, ki[0]))
    pool = [k for k, _ in pool]
    order = []
    for h, size in zip(hands, (14, 13, 13, 13)):
        if h:
            ks = parse_tiles(h)
            assert len(ks) == size, h
        else:
            ks, pool = pool[:size], pool[size:]
        order += ks
    return order + [ind] + parse_tiles(live) + pool


class Script(Player):
    """Scripted decisions: `discards` in order (a tile, or "drawn"), then greedy's; claims
    only as listed in `claims` (tile -> "pung"/"kong"/"chow"), else pass; `wins(view, tile,
    kind)` decides wins (default: take every one).  Records what it was offered."""

    def __init__(self, discards=(), claims=None, wins=None):
        self.discards = list(discards)
        self.claims = dict(claims or {})
        self.wins = wins
        self.turns, self.calls, self.asked = [], [], []

    def turn(self, view, options):
        self.turns.append((view.drawn, list(options)))
        if self.discards:
            t = self.discards.pop(0)
            choice = ("discard", view.drawn if t == "drawn" else parse_tile(t))
            assert choice in options, (choice, options)
            return choice
        return view.builtin("greedy")

    def claim(self, view, tile, options):
        self.calls.append((tile, list(options)))
        want = self.claims.get(kind_name(tile))
        for i, o in enumerate(options):
            if o[0] == want:
                return i
        return None

    def win(self, view, tile, kind):
        self.asked.append((tile, kind))
        return True if self.wins is None else self.wins(view, tile, kind)


def play_script(rules=FLAT, dealer=0, players=None, hands=(None,) * 4, indicator=IND, live="", **kw):
    players = players or [Script() for _ in range(4)]
    in_order = [hands[(dealer + i) % 4] for i in range(4)]
    wall = flat_wall(in_order, indicator, live)
    h = game.play(rules, seed=1, hand_index=0, players=players, dealer=dealer, wall=wall, **kw)
    check_record(h, rules)
    return h


def events(h, *kinds):
    return [e for e in h.events if e.kind in kinds]


def tile_count(text):
    return Counter(parse_tiles(text)) if text else Counter()


def check_record(h, rules):
    """Invariants every hand keeps: the 108 tiles, zero-sum, payments, factor products."""
    total = Counter()
    for s in range(4):
        total += tile_count(h.final[s]) + tile_count(h.discards[s])
        for m in h.melds[s]:
            total += tile_count(m.split(":")[1])
    total += tile_count(h.wall) + tile_count(h.set_aside) + Counter(parse_tiles("".join(h.birds)))
    total[parse_tile(h.wild_indicator)] += 1
    assert all(total[k] == 4 for k in range(27)) and sum(total.values()) == 108, total
    assert sum(h.deltas) == 0
    assert h.wilds == tuple(kind_name(k) for k in engine.wild_tiles(parse_tile(h.wild_indicator)))
    for w in h.wins:
        assert sum(a for _, a, _ in w.payments) == w.received
        cap = rules["score_cap"] * rules["base"]       # in units of base (RULES §1 Units)
        if w.kind != "instant":
            score = math.prod(v for name, v in w.factors if name != "bird")
            assert w.points == (min(score, cap) if cap else score), (w.points, w.factors)
        if len(w.payments) == 1 and not w.capped:
            assert math.prod(v for _, v in w.factors) == w.payments[0][1]
    if h.events:
        paid = [0, 0, 0, 0]
        for e in events(h, "payment"):
            paid[e.seat] -= e.amount
            paid[e.to_seat] += e.amount
        assert tuple(paid) == h.deltas


# ------------------------------------------------------------------ wilds and the evaluator helper

def test_indicator_is_turned_up_after_the_deal_and_the_wilds_wrap():
    h = play_script(hands=["234m567m234p567p55s", None, None, None], indicator="9s")
    assert h.events[0].kind == "indicator" and h.events[0].tile == "9s"
    assert h.wild_indicator == "9s" and h.wilds == ("9s", "1s")
    h = play_script(hands=["234m567m234p567p55s", None, None, None], indicator="4p")
    assert h.wilds == ("4p", "5p")


def test_indicator_minus_one_means_face_value_in_the_evaluator():
    # the players' face-value questions (RULES §3.3 eligibility) use indicator -1 under Anhua
    cfg = engine.core_config(Rules.load("anhua"))
    rng = np.random.default_rng(3)
    no_melds = (0, False, False, 0, [0] * 34)
    for _ in range(400):
        hand = rng.choice(np.repeat(np.arange(27), 4), size=13, replace=False)
        counts = np.bincount(hand, minlength=34).tolist()
        # an indicator whose wild kinds the hand does not hold changes nothing
        free = [k for k in range(27) if counts[k] == 0 and counts[engine.wild_tiles(k)[1]] == 0]
        if not free:
            continue
        ind = free[0]
        assert _core.shanten_hand(cfg, counts, no_melds, -1) == _core.shanten_hand(cfg, counts, no_melds, ind)
        for sign in (1, -1):
            fv = _core.shanten_neighbours_hand(cfg, counts, no_melds, -1, sign)[1]
            wild = _core.shanten_neighbours_hand(cfg, counts, no_melds, ind, sign)[1]
            assert [fv[k] for k in range(27) if k not in engine.wild_tiles(ind)] == [
                wild[k] for k in range(27) if k not in engine.wild_tiles(ind)]
        assert _core.waits_hand(cfg, counts, no_melds, -1) == _core.waits_hand(cfg, counts, no_melds, ind)


# ------------------------------------------------------------------ special start

SI_WANG = "1111s234m567m258p"      # four type-B wilds (1s) = 四王


def test_special_start_declared():
    h = play_script(hands=[None, SI_WANG, None, None])
    (w,) = h.wins
    assert (w.winner, w.kind, w.category, w.points, w.tile) == (1, "instant", "si_wang", 2, None)
    assert h.end == "instant" and h.deltas == (-2, 6, -2, -2)
    assert h.birds == () and w.factors == (("instant", 2),) and w.birds_hit == 0
    assert [(e.kind, e.seat, e.declared) for e in h.events[1:3]] == [("instant", 1, True), ("win", 1, None)]
    assert h.next_dealer == 1 and h.draws == 0


def test_special_start_passed_is_never_offered_again():
    passer = Script(wins=lambda view, tile, kind: kind != "instant")
    h = play_script(hands=[None, SI_WANG, None, None], players=[Script(), passer, Script(), Script()])
    assert [e.declared for e in events(h, "instant")] == [False]
    assert all(w.kind != "instant" for w in h.wins)
    assert [k for _, k in passer.asked].count("instant") == 1
    assert h.draws > 0


def test_special_start_in_play_order_from_the_dealer():
    rules = FLAT.with_overrides(instant_win_categories=["san_wang", "si_wang"])
    hands = [None, SI_WANG, None, "999s234m567m258p4p"]   # seat 3: three type-A wilds = 三王
    h = play_script(rules, dealer=2, hands=hands)
    assert [(w.winner, w.category) for w in h.wins] == [(3, "san_wang")]
    # the dealer's 上家 declares before seat 1; when it passes, seat 1 may
    players = [Script(), Script(), Script(), Script(wins=lambda v, t, k: k != "instant")]
    h = play_script(rules, dealer=2, hands=hands, players=players)
    assert [(e.seat, e.declared) for e in events(h, "instant")] == [(3, False), (1, True)]
    assert [(w.winner, w.kind) for w in h.wins] == [(1, "instant")]


def test_special_start_is_paid_in_units_of_base():
    # RULES §1 Units: "a base of 2 doubles every payment", the special start's included
    h = play_script(FLAT.with_overrides(base=3), hands=[None, SI_WANG, None, None])
    assert h.wins[0].points == 6 and h.deltas == (-6, 18, -6, -6)
    assert [(p.reason, p.pattern) for p in h.payments] == [("instant", "pinghu")] * 3


def test_special_start_off_and_score_and_cap():
    h = play_script(FLAT.with_overrides(instant_win_categories=[]), hands=[None, SI_WANG, None, None])
    assert not events(h, "instant")
    h = play_script(FLAT.with_overrides(instant_win_score=5, score_cap=3), hands=[None, SI_WANG, None, None])
    assert h.deltas == (-3, 9, -3, -3)
    # the cap is in units of base like the score (RULES §1: a base of 2 doubles every payment)
    h = play_script(FLAT.with_overrides(instant_win_score=5, score_cap=3, base=2), hands=[None, SI_WANG, None, None])
    assert h.deltas == (-6, 18, -6, -6)


# ------------------------------------------------------------------ discard wins

# seat 1 waits on 5p; the dealer's least useful tile is 5p
DEALER_DISCARDS_5P = "234m567m234s678s5p"  # 13 + the scripted discard below
DEALER = "234m567m234s678s5p9p"


def discard_first(tile, n=1):
    return Script(discards=[tile] * n)


def test_dan_wang_discard_win_at_face_value():
    # 1s is a wild at face value in 123s: 單王, complete at face value -> 硬莊 on a discard
    h = play_script(hands=[DEALER, "123s456m789m234p5p", None, None], players=[discard_first("5p")] + [Script() for _ in range(3)],
                    live="3m")   # the bird: rank 3 -> the winner's 對家 (seat 3) hits nobody paying
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile, w.category, w.hard, w.points) == (1, 0, "discard", "5p", "dan_wang", True, 4)
    assert h.birds == ("3m",) and w.bird_seats == (3,) and w.birds_hit == 0
    assert h.deltas == (-4, 4, 0, 0)
    assert w.factors == (("yingzhuang", 4),)


def test_discard_win_wilds_none_refuses_a_single_wild_at_face_value():
    rules = FLAT.with_overrides(discard_win_wilds="none")
    h = play_script(rules, hands=[DEALER, "123s456m789m234p5p", None, None],
                    players=[discard_first("5p")] + [Script() for _ in range(3)], live="3m")
    assert h.events[1].kind == "discard" and h.events[1].tile == "5p"
    assert not events(h, "pass_win") and not any(w.winner == 1 and w.payer == 0 for w in h.wins)
    assert (h.events[2].kind, h.events[2].seat) == ("draw", 1)
    # with no wild in hand the discard win stands
    h = play_script(rules, hands=[DEALER, "123m456m789m234p5p", None, None],
                    players=[discard_first("5p")] + [Script() for _ in range(3)], live="3m")
    assert [(w.winner, w.kind, w.hard) for w in h.wins] == [(1, "discard", True)]


def test_discard_win_wilds_face_value_lets_san_wang_win_on_a_discard():
    rules = FLAT.with_overrides(discard_win_wilds="face_value")
    h = play_script(rules, hands=[DEALER, "111s456m789m234p5p", None, None],
                    players=[discard_first("5p")] + [Script() for _ in range(3)], live="3m")
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.category, w.hard, w.points) == (1, 0, "discard", "san_wang", True, 4)
    # still never with a wild substituting
    h = play_script(rules, hands=["234m567m234p678p6s9p", "1s45s456m789m234p5p", None, None],
                    players=[Script(discards=["6s"])] + [Script() for _ in range(3)])
    assert not any(w.kind == "discard" and w.tile == "6s" for w in h.wins) and not events(h, "pass_win")


@pytest.mark.parametrize("mode", ["dan_wang_face_value", "none", "face_value"])
def test_discard_win_wilds_over_seeded_hands(mode):
    """Every discard win is complete at face value (硬莊) and holds only the wilds the mode
    allows; 槓上炮 and 搶槓胡 keep no-wild-or-單王."""
    rules = Rules.load("anhua", discard_win_wilds=mode)
    _, wins = game.simulate_chunk(rules, ("greedy", "random", "greedy", "random"), seed=2, start=0, count=3000)
    cats = wins["category"][wins["win_kind"] == game.WIN_KINDS.index("discard")]
    assert len(cats) > 100
    allowed = {"none": {0}, "dan_wang_face_value": {0, 1}, "face_value": {0, 1, 2, 3, 4, 5}}[mode]
    assert set(cats.tolist()) <= allowed
    if mode != "none":
        assert (cats == 1).any()
    other = np.isin(wins["win_kind"], [game.WIN_KINDS.index("rob_kong"), game.WIN_KINDS.index("gangshangpao")])
    assert (wins["category"][other] <= 1).all()


@pytest.mark.parametrize("on_draw_only", [True, False])
def test_added_kong_on_draw_only(on_draw_only):
    """RULES §3.4: 碰槓 only with the tile just drawn by default; `false` also offers the
    fourth tile held since the pung.  Seat 1 pungs 7p holding the fourth copy; on its next
    turn it draws 2m, tenpai before (7p) and after (2m) the kong."""
    seat1 = Script(discards=["8m"], claims={"7p": "pung"})
    h = play_script(FLAT.with_overrides(added_kong_on_draw_only=on_draw_only),
                    hands=["234m567m234s678s7p9p", "777p123p456p999p8m", None, None],
                    players=[Script(discards=["7p"]), seat1, Script(), Script()], live="6m6m6m2m")
    drawn, opts = seat1.turns[1]
    assert kind_name(drawn) == "2m"
    kongs = [o for o in opts if o[0] != "discard"]
    if on_draw_only:
        assert kongs == [] and not events(h, "kong")
    else:
        assert kongs == [("added_kong", parse_tile("7p"))]
        assert [(e.seat, e.tile, e.kong) for e in events(h, "kong")] == [(1, "7p", "added")]


def test_san_wang_discard_win_refused_but_self_draw_allowed():
    # 111s = three type-B wilds (三王): no discard win, even complete at face value
    h = play_script(hands=[DEALER, "111s456m789m234p5p", None, None],
                    players=[discard_first("5p")] + [Script() for _ in range(3)], live="5p" + "1m")
    assert not events(h, "pass_win")
    (w,) = h.wins
    assert (w.winner, w.kind, w.tile, w.category) == (1, "self_draw", "5p", "san_wang")
    assert w.points == 4            # 硬莊 4 >= 平胡 1 x 三王 4; the tie goes to 硬莊
    assert h.birds == ("1m",) and w.bird_seats == (1,)       # rank 1: the winner
    assert h.deltas == (-8, 24, -8, -8)


def test_dan_wang_needing_substitution_refused_on_a_discard():
    # 1s stands in for 4s..6s next to 5s / pairs the 5p: with the dealer's 6s the hand is
    # complete (456s + 1s5p) only with the wild substituting -> no discard win
    h = play_script(hands=["234m567m234p678p6s9p", "1s45s456m789m234p5p", None, None],
                    players=[Script(discards=["6s"])] + [Script() for _ in range(3)])
    assert h.events[1].kind == "discard" and h.events[1].tile == "6s"
    assert not events(h, "pass_win")
    assert (h.events[2].kind, h.events[2].seat) == ("draw", 1)


def test_jiehu_one_winner_in_play_order_from_the_discarder():
    hands = [DEALER, None, "123m456m789m234p5p", "234s456m789m234p5p"]
    h = play_script(hands=hands, players=[discard_first("5p")] + [Script() for _ in range(3)], live="1m")
    assert [(w.winner, w.payer) for w in h.wins] == [(2, 0)]
    # with multiple_ron both win; one set of birds, mapped per winner
    h = play_script(FLAT.with_overrides(multiple_ron=True), hands=hands,
                    players=[discard_first("5p")] + [Script() for _ in range(3)], live="1m")
    assert [(w.winner, w.payer) for w in h.wins] == [(2, 0), (3, 0)]
    assert [w.bird_seats for w in h.wins] == [(2,), (3,)]
    assert h.deltas == (-16, 0, 8, 8)
    # a seat that passes lets the next one in order win
    players = [discard_first("5p"), Script(), Script(wins=lambda v, t, k: False), Script()]
    h = play_script(hands=hands, players=players, live="1m")
    assert [(w.winner, w.payer) for w in h.wins] == [(3, 0)]
    assert [(e.seat, e.tile) for e in events(h, "pass_win")] == [(2, "5p")]


# 漏胡: seat 2 deals and discards 2p; seat 1 waits on 2p/5p (34p + 55p) and passes it; then
# seat 3 discards 2p (the kind passed) and seat 0 discards 5p, before seat 1's own turn.
LOCK_HANDS = ["5p345m678m456s67p9p", "34p55p456m789m234s", "2p234m567m234s678s9p", "2p345m678m345s57s9p"]


@pytest.mark.parametrize("lock,wins_on", [("same_kind_until_own_discard", "5p"), ("until_own_discard", None),
                                          ("none", "2p")])
def test_pass_ron_lock(lock, wins_on):
    asked = []

    def passer(view, tile, kind):
        asked.append(tile)
        return len(asked) > 1          # passes the first win only
    players = [Script(discards=["5p"]), Script(wins=passer), Script(discards=["2p"]), Script(discards=["2p"])]
    h = play_script(FLAT.with_overrides(pass_ron_lock=lock), dealer=2, hands=LOCK_HANDS, players=players,
                    live="1m1m9m")
    seq = [(e.kind, e.seat, e.tile) for e in h.events if e.kind in ("discard", "pass_win", "win")][:5]
    assert seq[:3] == [("discard", 2, "2p"), ("pass_win", 1, "2p"), ("discard", 3, "2p")]
    if wins_on == "2p":
        assert seq[3] == ("win", 1, "2p")
    elif wins_on == "5p":
        assert seq[3:] == [("discard", 0, "5p"), ("win", 1, "5p")]
    else:
        assert seq[3] == ("discard", 0, "5p") and seq[4][0] != "win"
    if wins_on:
        assert h.wins[0].kind == "discard" and h.wins[0].winner == 1


# ------------------------------------------------------------------ kongs

KONG_OK = "2222m345m678m23p55p"          # tenpai before (discard a 2m) and after (1p/4p)
KONG_NOT_TENPAI_AFTER = "2222m3m7m567m55p789p"


class Offers(Script):
    """Records its turn options; discards `tile` on its first turn (never kongs)."""

    def __init__(self, tile):
        super().__init__(discards=[tile])


def first_turn_kongs(rules, hand):
    p = Offers("5p")
    play_script(rules, hands=[hand, None, None, None], players=[p, Script(), Script(), Script()])
    return [o for o in p.turns[0][1] if o[0] != "discard"]


LIVE_AT_START = 108 - 53 - 1       # live tiles at the dealer's first turn (after the indicator)


def test_concealed_kong_needs_tenpai_after_and_enough_wall():
    two_m = parse_tile("2m")
    assert first_turn_kongs(FLAT, KONG_OK) == [("concealed_kong", two_m)]
    assert first_turn_kongs(FLAT, KONG_NOT_TENPAI_AFTER) == []
    # more than kong_min_wall - 1 live tiles must remain
    assert first_turn_kongs(FLAT.with_overrides(kong_min_wall=LIVE_AT_START + 1), KONG_OK) == []
    assert first_turn_kongs(FLAT.with_overrides(kong_min_wall=LIVE_AT_START), KONG_OK) == [("concealed_kong", two_m)]


@pytest.mark.parametrize("hand,offered", [("222m345m678m23p55p", True),      # tenpai before and after
                                          ("222m345m678m2p8p55p", False),    # not tenpai before
                                          ("22234m678m789p56p", False)])     # tenpai before (22m pair), not after
def test_exposed_kong_under_the_tenpai_rule(hand, offered):
    seat1 = Script()
    play_script(hands=["2m345s678s234p678p9p", hand, None, None],
                players=[Script(discards=["2m"]), seat1, Script(), Script()])
    tile, opts = seat1.calls[0]
    assert kind_name(tile) == "2m"
    assert (("kong",) in opts) == offered and ("pung",) in opts


# after the dealer's concealed kong of 2m its hand waits on 1p/4p (hard) and, through the
# 1s wild, on anything a joker completes (soft)
def test_buzhang_win_takes_the_best_of_three():
    h = play_script(hands=[KONG_OK, None, None, None], live="1s4p7s" + "1m")
    (bz,) = h.buzhang
    assert bz == (0, "1s4p7s")
    (w,) = h.wins
    # 1s (a joker) would give 平胡 單王 2 x 槓上花 2 = 4; 4p gives 硬莊 4 x 槓上花 2 = 8
    assert (w.winner, w.kind, w.tile, w.points, w.hard) == (0, "gangshanghua", "4p", 8, True)
    assert "gangshanghua" in w.properties and w.factors == (("yingzhuang", 4), ("gangshanghua", 2), ("bird", 2))
    assert sorted(parse_tiles(h.set_aside)) == sorted(parse_tiles("1s7s"))
    assert h.birds == ("1m",) and h.deltas == (48, -16, -16, -16)
    assert h.kongs["concealed"] == 1 and h.end == "self_draw"


def test_score_cap_applies_after_the_birds():
    h = play_script(FLAT.with_overrides(score_cap=12), hands=[KONG_OK, None, None, None], live="1s4p7s" + "1m")
    (w,) = h.wins
    assert w.points == 8 and w.capped == 12 and h.deltas == (36, -12, -12, -12)
    h = play_script(FLAT.with_overrides(score_cap=6), hands=[KONG_OK, None, None, None], live="1s4p7s" + "1m")
    assert h.wins[0].points == 6 and h.deltas == (18, -6, -6, -6)


# Dealer kongs 2m and then waits on 6p/9p.  Seat 2 holds one wild (1s at face value in 123s)
# and waits on 1p/4p at face value (硬莊) and, with the 1s as a joker, on 4s (平胡 單王);
# seat 3 waits on 8s.  The 補章 tiles 4s 4p 8s complete nothing for the dealer.
GSP_HANDS = ["2222m345m678m78p55p", None, "123s23p456m789m55p", "345m456s789s567m8s"]
GSP_LIVE = "4s4p8s"


def test_gangshangpao_best_tile_per_receiver_and_one_winner():
    h = play_script(hands=GSP_HANDS, live=GSP_LIVE + "3m")
    assert [(e.kind, e.seat, e.tile, e.buzhang) for e in h.events if e.kind == "discard"][:3] == [
        ("discard", 0, "4s", True), ("discard", 0, "4p", True), ("discard", 0, "8s", True)]
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile, w.hard) == (2, 0, "gangshangpao", "4p", True)
    # 硬莊 4 x 槓上炮 2, and the bird (rank 3: the winner's 對家 = the kong player) doubles it
    assert w.points == 8 and w.bird_seats == (0,) and w.birds_hit == 1
    assert h.deltas == (-16, 0, 16, 0)
    assert w.factors == (("yingzhuang", 4), ("gangshangpao", 2), ("bird", 2))
    h = play_script(FLAT.with_overrides(multiple_ron=True), hands=GSP_HANDS, live=GSP_LIVE + "3m")
    assert [(w.winner, w.tile) for w in h.wins] == [(2, "4p"), (3, "8s")]


def test_locked_hand_discards_what_it_draws_and_calls_nothing():
    # seats 2 and 3 pass their 槓上炮 wins; seat 3 later discards 6m, which the locked dealer
    # (holding 45m and 78m) could otherwise chow
    no_gsp = lambda view, tile, kind: kind != "gangshangpao"
    dealer = Script()
    players = [dealer, Script(), Script(wins=no_gsp), Script(discards=["6m"], wins=no_gsp)]
    h = play_script(hands=GSP_HANDS, players=players, live=GSP_LIVE + "9m9m9m1m")
    assert [(e.seat, e.tile) for e in events(h, "pass_win")] == [(2, "4p"), (3, "8s")]
    assert 0 in h.locked and events(h, "locked")[0].seat == 0
    assert [(e.seat, e.tile) for e in events(h, "discard") if e.seat == 3][0] == (3, "6m")
    assert dealer.calls == []          # never offered a claim (the chow of 6m included)
    locked_turns = [(d, opts) for d, opts in dealer.turns if d is not None]
    assert locked_turns and locked_turns[0][0] == parse_tile("1m")
    for drawn, opts in locked_turns:
        assert [o for o in opts if o[0] == "discard"] == [("discard", drawn)]
    i = h.events.index(events(h, "locked")[0])
    draws = [e.tile for e in h.events[i:] if e.kind == "draw" and e.seat == 0]
    discards = [e.tile for e in h.events[i:] if e.kind == "discard" and e.seat == 0]
    assert discards == draws[:len(discards)] and discards


ROB_HANDS = ["7p234m567m234s678s9p", None, "77p345m678m23s55s9m", "68p234m567m345s88s"]
ROB_LIVE = "1m" + "2m" + "3m" + "7p" + "4m"   # seats 3, 0, 1 draw; seat 2 draws 7p; the bird 4m


def rob_players():
    rob_only = lambda view, tile, kind: kind == "rob_kong"
    return [Script(discards=["7p"]), Script(), Script(discards=["9m"], claims={"7p": "pung"}),
            Script(discards=["drawn"], wins=rob_only)]


def test_robbing_an_added_kong():
    # seat 2 pungs the dealer's 7p, later draws the last 7p and adds a kong (tenpai before
    # and after); seat 3 waits on 7p with no wild, passes the first 7p, then robs the kong
    h = play_script(hands=ROB_HANDS, players=rob_players(), live=ROB_LIVE)
    assert [(e.kind, e.seat) for e in events(h, "pung", "robbed")] == [("pung", 2), ("robbed", 2)]
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile) == (3, 2, "rob_kong", "7p")
    assert w.points == 4 * 2 and "qiangganghu" in w.properties    # 硬莊 x 搶槓胡
    # bird rank 4 -> the winner's 上家 = seat 2, the robbed player: x2
    assert w.bird_seats == (2,) and h.deltas == (0, 0, -16, 16)
    assert w.factors == (("yingzhuang", 4), ("qiangganghu", 2), ("bird", 2))
    h = play_script(FLAT.with_overrides(rob_kong_pays="all"), hands=ROB_HANDS, players=rob_players(), live=ROB_LIVE)
    # three shares from the robbed player, each with its own seat's bird factor
    assert h.deltas == (0, 0, -(16 + 8 + 8), 32)
    assert h.wins[0].payments == ((2, 8, 1), (2, 8, 1), (2, 16, 2))


# ------------------------------------------------------------------ birds

SELF_DRAW_DEALER = "234m567m234p567p55s"   # complete at the deal, 硬莊 4, no wild


@pytest.mark.parametrize("bird,seat", [("1m", 0), ("5p", 0), ("9m", 0), ("2m", 1), ("6s", 1),
                                       ("3p", 2), ("7m", 2), ("4s", 3), ("8m", 3)])
def test_bird_on_each_seat_class(bird, seat):
    h = play_script(hands=[SELF_DRAW_DEALER, None, None, None], live=bird)
    (w,) = h.wins
    assert (w.kind, w.points, w.bird_seats, w.birds_hit) == ("self_draw", 4, (seat,), 1)
    # a bird on the winner doubles all three payments, one on a payer only that payer's
    pay = [0] + [4 * (2 if seat in (0, q) else 1) for q in (1, 2, 3)]
    assert h.deltas == (sum(pay), -pay[1], -pay[2], -pay[3])
    # the same bird on a discard win counts only on the winner and the discarder
    h = play_script(hands=[DEALER, "123m456m789m234p5p", None, None],
                    players=[discard_first("5p")] + [Script() for _ in range(3)], live=bird)
    (w,) = h.wins
    hit = (1 + seat) % 4 in (0, 1)     # relative to winner 1: the winner itself or seat 0
    assert w.birds_hit == int(hit) and h.deltas == (-4 * (1 + hit), 4 * (1 + hit), 0, 0)


def test_two_birds_multiply():
    rules = FLAT.with_overrides(birds=2)
    h = play_script(rules, hands=[SELF_DRAW_DEALER, None, None, None], live="1m5m")
    assert h.birds == ("1m", "5m") and h.deltas == (48, -16, -16, -16)
    h = play_script(rules, hands=[SELF_DRAW_DEALER, None, None, None], live="1m2m")
    assert h.deltas == (32, -16, -8, -8) and h.wins[0].birds_hit == 2
    h = play_script(FLAT.with_overrides(birds=0), hands=[SELF_DRAW_DEALER, None, None, None], live="1m")
    assert h.birds == () and h.deltas == (12, -4, -4, -4)


def test_no_bird_after_a_win_on_the_last_live_tile():
    # players who only take a win once the wall is empty; look for such hands among seeds
    late = [Script(wins=lambda view, tile, kind: view.wall_left == 0) for _ in range(4)]
    rules = Rules.load("anhua", birds=2)
    found = 0
    for i in range(60):
        h = game.play(rules, seed=5, hand_index=i, players=late)
        check_record(h, rules)
        if h.wins:
            assert h.wall == "" and h.birds == ()
            assert all(a == w.points for w in h.wins for _, a, _ in w.payments)
            found += 1
    assert found >= 3


# ------------------------------------------------------------------ invariants

PLAYER_SETS = [("greedy",) * 4, ("random",) * 4, ("greedy", "random", PassOnce(), "random")]


@pytest.mark.parametrize("players", PLAYER_SETS)
def test_invariants_over_seeded_hands(players):
    rules = Rules.load("anhua")
    n = 300
    batch, wins = game.simulate_chunk(rules, players, seed=42, start=1000, count=n)
    deltas = np.stack([batch[f"delta_{s}"] for s in range(4)], axis=1)
    assert (deltas.sum(axis=1) == 0).all()
    assert (wins["received"] > 0).all() and len(wins["hand_index"]) == batch["n_winners"].sum()
    assert (batch["n_winners"] <= 1).all()            # 截胡: one winner
    for i in range(n):
        h = game.play(rules, seed=42, hand_index=1000 + i, players=players, log=(i % 2 == 0))
        check_record(h, rules)
        assert parse_tile(h.wild_indicator) == batch["wild_indicator"][i]
        assert h.deltas == tuple(deltas[i])
        assert (h.end != "draw") == bool(batch["end"][i])
        assert sum(tile_count(h.wall).values()) == batch["wall_left"][i]
        assert [h.kongs[k] for k in game.KONG_NAMES] == [batch[f"kongs_{k}"][i] for k in game.KONG_NAMES]
        rows = np.flatnonzero(wins["hand_index"] == 1000 + i)
        assert [(w.winner, w.points, w.received, w.kind, w.birds_hit, w.category) for w in h.wins] == [
            (wins["winner"][r], wins["points"][r], wins["received"][r], game.WIN_KINDS[wins["win_kind"][r]],
             wins["birds_hit"][r], _core.CATEGORIES[wins["category"][r]]) for r in rows]
        if h.events:
            live = sum(1 for e in h.events if e.kind == "draw" and not e.replacement)
            live += sum(len(parse_tiles(t)) for _, t in h.buzhang)
            assert live == batch["draws"][i]
            assert h.live_draws == batch["draws"][i]
            assert not any(e.replacement for e in events(h, "draw"))    # Anhua has no replacements
            # no kong payments, and a kong only with at least kong_min_wall live tiles
            assert all(e.reason in ("win", "instant") for e in events(h, "payment"))
            # a locked seat discards what it draws
            for s in h.locked:
                lock_at = h.events.index([e for e in events(h, "locked") if e.seat == s][0])
                last_draw = None
                for e in h.events[lock_at + 1:]:
                    if e.kind == "draw" and e.seat == s:
                        last_draw = e.tile
                    elif e.kind == "discard" and e.seat == s and not e.buzhang:
                        assert e.tile == last_draw
                    elif e.kind in ("pung", "chow") and e.seat == s:
                        raise AssertionError("a locked seat claimed")
                    elif e.kind == "kong" and e.seat == s:
                        assert e.kong != "exposed"


def test_kongs_happen_and_follow_the_rules():
    rules = Rules.load("anhua")
    batch, wins = game.simulate_chunk(rules, ("greedy",) * 4, seed=7, start=0, count=1500)
    kongs = batch["kongs_added"] + batch["kongs_exposed"] + batch["kongs_concealed"]
    assert kongs.sum() > 20
    kinds = Counter(game.WIN_KINDS[k] for k in wins["win_kind"])
    assert kinds["gangshanghua"] > 0 and kinds["gangshangpao"] > 0 and kinds["self_draw"] > kinds["discard"]
    for i in np.flatnonzero(kongs > 0)[:25]:
        h = game.play(rules, seed=7, hand_index=int(i), players=("greedy",) * 4)
        check_record(h, rules)
        left = 108 - 53 - 1
        for e in h.events:
            if e.kind == "draw" or e.kind == "buzhang":
                left -= 1 if e.kind == "draw" else len(parse_tiles(e.tiles))
            if e.kind == "kong":
                assert left >= rules["kong_min_wall"]
        assert len(h.buzhang) == sum(h.kongs.values())     # every kong is followed by a 補章


def test_random_declares_the_special_start_about_half_the_time():
    rules = Rules.load("anhua", instant_win_categories=["dan_wang", "san_wang"])
    offers = declared = 0
    for i in range(300):
        h = game.play(rules, seed=2, hand_index=i, players=("random",) * 4)
        for e in events(h, "instant"):
            offers += 1
            declared += e.declared
    assert offers > 300 and 0.42 < declared / offers < 0.58
    res, won = game.simulate_chunk(rules, ("greedy",) * 4, seed=2, start=0, count=300)
    assert (won["win_kind"] == game.WIN_KINDS.index("instant")).sum() > 0.95 * 300


def test_greedy_keeps_wilds():
    rules = Rules.load("anhua")
    wild_discards = total = 0
    for i in range(40):
        h = game.play(rules, seed=13, hand_index=i, players=("greedy",) * 4)
        for e in events(h, "discard"):
            if not e.buzhang and not any(s == e.seat for s in h.locked):
                total += 1
                wild_discards += e.tile in h.wilds
    assert total > 300 and wild_discards / total < 0.01


def test_greedy_useful_tile_shortcut_matches_trying_every_kind_with_wilds():
    native = game._native(Rules.load("anhua"), ("greedy",) * 4)
    rng = np.random.default_rng(1)
    for _ in range(1500):
        ind = int(rng.integers(0, 27))
        pool = [k for k in range(27) for _ in range(4 if k != ind else 3)]
        hand = rng.choice(pool, size=13, replace=False)
        counts = np.bincount(hand, minlength=34).tolist()
        fast, every = _testing.useful_tiles_probe(native, counts, (), ind)
        assert fast == every


# ------------------------------------------------------------------ sessions

def test_sessions_rotate_the_dealer_winner_or_last_drawer():
    rules = Rules.load("anhua")
    players = ("random",) * 4      # random players leave many hands drawn
    hands, _ = game.simulate_chunk(rules, players, seed=8, start=0, count=120, session_hands=6)
    assert (hands["end"] == 0).sum() > 10
    nxt = None
    for i in range(120):
        if hands["hand_in_session"][i] == 0:
            assert hands["dealer"][i] == game.play(rules, seed=8, hand_index=i, log=False).dealer
        else:
            assert hands["dealer"][i] == nxt
        h = game.play(rules, seed=8, hand_index=i, players=players, session_hands=6)
        assert h.deltas == tuple(hands[f"delta_{s}"][i] for s in range(4))
        if h.end == "draw":
            # 海底 deals: the seat of the last draw (or 補章), not the loop's own record
            assert h.next_dealer == events(h, "draw", "buzhang")[-1].seat
        else:
            assert h.next_dealer == h.wins[0].winner
        nxt = h.next_dealer
    # the other dealer rules mean what they mean in Wanzai
    for rule, check in (("stay", lambda h: h.next_dealer == h.dealer), ("next", lambda h: h.next_dealer == (h.dealer + 1) % 4)):
        r = rules.with_overrides(dealer_on_draw=rule)
        for i in range(40):
            h = game.play(r, seed=8, hand_index=i, players=players)
            if h.end == "draw":
                assert check(h)
    r = rules.with_overrides(dealer_next="next_on_loss")
    for i in range(30):
        h = game.play(r, seed=8, hand_index=i, players=players)
        if h.wins:
            assert h.next_dealer == (h.dealer if h.wins[0].winner == h.dealer else (h.dealer + 1) % 4)


class NeverWins(Player):
    def turn(self, view, options):
        return view.builtin("greedy")

    def claim(self, view, tile, options):
        return view.builtin("greedy")

    def win(self, view, tile, kind):
        return False


def test_last_drawer_after_a_buzhang_that_empties_the_wall():
    """A 補章 that takes the last live tiles makes its kong player the 海底 seat.  Greedy
    players who never win reach the wall's end tenpai, and with kong_min_wall = 0 and six
    補章 tiles some exposed kong's 補章 (taken by a seat other than the previous drawer)
    empties the wall."""
    rules = Rules.load("anhua", kong_min_wall=0, buzhang_tiles=6)
    found = 0
    for i in range(150):
        h = game.play(rules, seed=8, hand_index=i, players=[NeverWins() for _ in range(4)])
        assert h.end == "draw"
        taken = events(h, "draw", "buzhang")
        assert h.next_dealer == taken[-1].seat
        if taken[-1].kind == "buzhang" and taken[-2].seat != taken[-1].seat:
            found += 1
    assert found >= 2


# ------------------------------------------------------------------ Python player protocol

@pytest.mark.parametrize("names", [("greedy",) * 4, ("random",) * 4, ("greedy", "random", "greedy_v1", "random")])
def test_builtin_players_through_the_python_protocol_play_identical_hands(names):
    rules = Rules.load("anhua", instant_win_categories=["san_wang", "si_wang", "qi_wang"])
    native, nw = game.simulate_chunk(rules, names, seed=21, start=0, count=60)
    wrapped, ww = game.simulate_chunk(rules, tuple(Builtin(n) for n in names), seed=21, start=0, count=60)
    for k in native:
        assert (native[k] == wrapped[k]).all(), k
    for k in nw:
        assert (nw[k] == ww[k]).all(), k
    for i in (3, 7):
        a = game.play(rules, seed=21, hand_index=i, players=names)
        b = game.play(rules, seed=21, hand_index=i, players=tuple(Builtin(n) for n in names))
        assert a == b


def test_table_view_shows_wilds_and_locks():
    seen = {}

    class Peek(Player):
        def turn(self, view, options):
            seen.setdefault("wilds", (view.wild_indicator, view.wilds, view.locked))
            return view.builtin("greedy")

    h = game.play(Rules.load("anhua"), seed=3, hand_index=1, players=(Peek(), "greedy", "greedy", "greedy"))
    ind = parse_tile(h.wild_indicator)
    assert seen["wilds"] == (ind, engine.wild_tiles(ind), [False] * 4)


@pytest.mark.parametrize("n", [1, 2])
def test_buzhang_tiles_is_a_rule_parameter(n):
    rules = Rules.load("anhua", buzhang_tiles=n)
    counts = []
    for i in range(400):
        h = game.play(rules, seed=44, hand_index=i, players=("greedy",) * 4)
        counts += [len(parse_tiles(e.tiles)) for e in h.events if e.kind == "buzhang"]
    assert counts and max(counts) == n
    assert sum(c == n for c in counts) >= 0.9 * len(counts)   # fewer only when the wall runs out


def test_buzhang_tiles_cannot_be_claimed():
    """RULES §3.4: the three 補章 tiles are discarded in order and cannot be chowed, punged or
    konged, only won on. The dealer kongs 2m and its 補章 brings 4s 4p 8s, none of which
    completes a hand; 下家 would chow 4s (holding 56s), 對家 would pung 4p (44p) and 上家
    would pung 8s (88s): none is offered the call, and 下家 draws next."""
    players = [Script(), Script(claims={"4s": "chow"}), Script(claims={"4p": "pung"}), Script(claims={"8s": "pung"})]
    hands = ["2222m345m678m78p55p", "56s258p369m27s47m5m", "44p147m258s36p69m3s", "88s137p3467s58m69p"]
    h = play_script(players=players, hands=hands, live="4s4p8s" + "3m")
    kong = events(h, "kong")[0]
    assert (kong.seat, kong.tile) == (0, "2m")
    i = h.events.index(events(h, "discard")[0])
    assert [(e.kind, e.seat, e.tile, e.buzhang) for e in h.events[i:i + 3]] == [
        ("discard", 0, "4s", True), ("discard", 0, "4p", True), ("discard", 0, "8s", True)]
    # each of those seats takes its call when offered, so none was: the dealer's hand
    # locks and 下家 draws
    assert [(e.kind, e.seat) for e in h.events[i + 3:i + 5]] == [("locked", 0), ("draw", 1)]

"""One test per rule that a planted single-line bug broke unnoticed, or noticed only by the
golden digests of test_same_decisions (issue 23): 上家's claims, the indicator as a seen
tile, greedy's calls, the payment bound's edge, resuming after a short last chunk, ev's
special start and base, an Anhua tie between readings, the 2-5-8 pair and score_cap; and
from a second audit (the h2_ mutants): 漏胡 against robbing a kong and 槓上炮, a wild
substituting in both, the kong's "before" hand, next_on_loss with several winners, meld
tiles as seen tiles and fewer birds when the wall runs short.  Each fails on its own, with
the rule in its name, when the rule is broken; bench/mutants.py plants those bugs and runs
these tests (docs/testing/mutants.md)."""
from collections import Counter

import pytest

import test_game_anhua as anhua
import test_game_wanzai as wanzai
from mjsim import Rules
from mjsim.play import engine
from mjsim.play import game
from mjsim.players import Player
from mjsim.tiles import kind_name, parse_tile


class Script(Player):
    """Wanzai scripted seat: `discards` in order (a tile, or "drawn"), then greedy's; claims
    only as listed in `claims` (tile -> "pung"/"kong"/"chow"), else pass; every win taken."""

    def __init__(self, discards=(), claims=None):
        self.discards = list(discards)
        self.claims = dict(claims or {})

    def turn(self, view, options):
        if self.discards:
            t = self.discards.pop(0)
            choice = ("discard", view.drawn if t == "drawn" else parse_tile(t))
            assert choice in options, (choice, options)
            return choice
        return view.builtin("greedy")

    def claim(self, view, tile, options):
        want = self.claims.get(kind_name(tile))
        return next((i for i, o in enumerate(options) if o[0] == want), None)

    def win(self, view, tile, kind):
        return True


# ------------------------------------------------------------------ 上家 claims (RULES §1, §2.1)

def test_wanzai_the_discarders_upper_seat_may_pung():
    """Pung from any seat (RULES §2.1), the discarder's 上家 (seat 3 for the dealer, seat 0)
    included: the claim check must ask a 上家 holding a pair."""
    h = wanzai.play_script(hands=[wanzai.DEALER_DISCARDS_WHITE, None, None, "123p456p78s77z149m"])
    first = h.events[:3]
    assert (first[0].kind, first[0].seat, first[0].tile) == ("discard", 0, "7z")
    assert (first[1].kind, first[1].seat, first[1].tile, first[1].from_seat) == ("pung", 3, "7z", 0)
    assert (first[2].kind, first[2].seat) == ("discard", 3)
    assert "pung:777z" in h.melds[3]


def test_anhua_the_discarders_upper_seat_may_pung():
    players = [anhua.Script(discards=["7p"]), anhua.Script(), anhua.Script(),
               anhua.Script(claims={"7p": "pung"})]
    h = anhua.play_script(hands=[anhua.ROB_HANDS[0], None, None, anhua.ROB_HANDS[2]], players=players)
    assert [(e.kind, e.seat, e.tile, e.from_seat) for e in h.events[1:3]] == [
        ("discard", 0, "7p", None), ("pung", 3, "7p", 0)]
    assert players[3].calls[0] == (parse_tile("7p"), [("pung",)])


def test_wanzai_the_kong_players_upper_seat_may_rob_the_kong():
    """搶槓 (RULES §2.1, §2.5) is open to every other seat: here seat 1 robs the added kong of
    seat 2, its 下家 (so seat 1 is the kong player's 上家, the last seat asked)."""
    hands = [wanzai.DEALER_DISCARDS_WHITE, "5z123s456s789s22p4z", "123p456p78s77z149m", None]
    players = [Script(discards=["7z", "drawn"]), Script(discards=["4z"]),
               Script(discards=["9m"], claims={"7z": "pung"}), Script(discards=["drawn"])]
    # seats 3, 0 and 1 draw after seat 2's pung; seat 1's 6z makes it wait on 中發白's 7z
    h = wanzai.play_script(hands=hands, players=players, live="2z" + "9p" + "6z" + "7z")
    robbed = wanzai.events(h, "robbed")
    assert robbed and (robbed[0].seat, robbed[0].tile) == (2, "7z")
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile) == (1, 2, "rob_kong", "7z")
    assert h.end == "rob_kong" and h.deltas == (0, 3, -3, 0)


def test_anhua_the_kong_players_upper_seat_may_rob_the_kong():
    """搶槓胡 (RULES §3.3): as test_game_anhua's robbing test with the robber moved from
    seat 3 (the kong player's 下家) to seat 1 (its 上家)."""
    rob_only = lambda view, tile, kind: kind == "rob_kong"
    hands = [anhua.ROB_HANDS[0], anhua.ROB_HANDS[3], anhua.ROB_HANDS[2], None]
    players = [anhua.Script(discards=["7p"]), anhua.Script(discards=["drawn"], wins=rob_only),
               anhua.Script(discards=["9m"], claims={"7p": "pung"}), anhua.Script(discards=["drawn"])]
    h = anhua.play_script(hands=hands, players=players, live=anhua.ROB_LIVE)
    assert [(e.kind, e.seat) for e in anhua.events(h, "pung", "robbed")] == [("pung", 2), ("robbed", 2)]
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile) == (1, 2, "rob_kong", "7p")
    assert "qiangganghu" in w.properties


# ------------------------------------------------------------------ the indicator is a seen tile

class SeenProbe(Player):
    """Greedy; at every decision records view.seen and what the table shows."""

    def __init__(self):
        self.records = []

    def _record(self, view):
        shown = Counter()
        for pool in view.discards:
            shown.update(pool)
        for seat_melds in view.melds:
            for kind, tiles in seat_melds:
                if kind != "concealed_kong":
                    shown.update(tiles)
        self.records.append((view.wild_indicator, list(view.seen), shown))

    def turn(self, view, options):
        self._record(view)
        return view.builtin("greedy")

    def claim(self, view, tile, options):
        self._record(view)
        return view.builtin("greedy")

    def win(self, view, tile, kind):
        return view.builtin("greedy")


def test_anhua_the_turned_up_indicator_counts_as_a_seen_tile():
    """RULES §3.1: the indicator is face up and set aside, so every player's count of the
    visible tiles (view.seen, which greedy and ev count unseen tiles from) holds it, from
    the first decision on: seen = the discards in the pools + the exposed meld tiles + it."""
    probes = [SeenProbe() for _ in range(4)]
    rules = Rules.load("anhua")
    for i in range(12):
        game.play(rules, seed=3, hand_index=i, players=probes, log=False)
    records = [r for p in probes for r in p.records]
    assert len(records) > 200
    for indicator, seen, shown in records:
        expected = [shown[k] + (k == indicator) for k in range(34)]
        assert seen == expected, (kind_name(indicator), seen, expected)
    first = [p.records[0] for p in probes if p.records]
    assert all(seen[ind] >= 1 for ind, seen, _ in first)


# ------------------------------------------------------------------ greedy's calls

WANZAI = Rules.load("wanzai")


def _kinds_of(counts):
    return [k for k in range(34) for _ in range(counts[k])]


def _shanten(counts, melds):
    return engine.shanten(WANZAI, _kinds_of(counts), melds)


def _useful(counts, melds, unseen, sh):
    """Unseen copies of the kinds that lower the shanten `sh` of a 3n+1 hand."""
    n = 0
    for k in range(34):
        if unseen[k] > 0:
            counts[k] += 1
            if _shanten(counts, melds) < sh:
                n += unseen[k]
            counts[k] -= 1
    return n


def _unseen(counts, hidden, seen):
    return [max(0, 4 - counts[k] - hidden[k] - seen[k]) for k in range(34)]


def _after_call(counts, melds, hidden, seen, tile, option):
    """(shanten, useful tiles) of the hand after a pung or chow and its best discard: the
    lowest shanten, then the most unseen useful tiles with the discard seen."""
    counts = list(counts)
    if option[0] == "pung":
        taken, meld = [tile, tile], ("pung", [tile] * 3)
    else:
        taken, meld = list(option[1:]), ("chow", sorted([tile, *option[1:]]))
    for k in taken:
        counts[k] -= 1
    melds = melds + [meld]
    by_discard = {}
    for d in range(34):
        if counts[d]:
            counts[d] -= 1
            by_discard[d] = _shanten(counts, melds)
            counts[d] += 1
    sh = min(by_discard.values())
    best_u = -1
    for d, s in by_discard.items():
        if s == sh:
            counts[d] -= 1
            seen_d = list(seen)
            seen_d[d] += 1
            best_u = max(best_u, _useful(counts, melds, _unseen(counts, hidden, seen_d), sh))
            counts[d] += 1
    return sh, best_u


class CallProbe(Player):
    """Greedy; at every pung or chow offer records greedy's answer and the position."""

    def __init__(self):
        self.offers = []

    def claim(self, view, tile, options):
        answer = view.builtin("greedy")
        if ("kong",) not in options:
            melds = [(kind, tiles) for kind, tiles in view.melds[view.seat]]
            hidden = [0] * 34
            for kind, tiles in melds:
                if kind == "concealed_kong":
                    hidden[tiles[0]] += 4
            self.offers.append((view.hand, melds, hidden, view.seen, tile, options, answer))
        return answer


def test_greedy_calls_only_for_a_better_shanten_or_strictly_more_useful_tiles():
    """Greedy's call rule (mjsim._greedy.greedy_call): it pungs or chows when the shanten does
    not get worse and the shanten or the unseen useful tiles improve -- so on a tie in useful
    tiles at the same shanten it passes.  Every offer to one greedy seat over seeded hands is checked against
    that rule recomputed here from the evaluator's shanten; ties must occur and be passed."""
    probe = CallProbe()
    for i in range(20):
        game.play(WANZAI, seed=5, hand_index=i, players=(probe, "greedy", "greedy", "greedy"), log=False)
    ties = better = 0
    for counts, melds, hidden, seen, tile, options, answer in probe.offers:
        s0 = _shanten(counts, melds)
        u0 = _useful(list(counts), melds, _unseen(counts, hidden, seen), s0)
        scored = [_after_call(counts, melds, hidden, seen, tile, o) for o in options]
        keep = [i for i, (s1, u1) in enumerate(scored) if s1 < s0 or (s1 == s0 and u1 > u0)]
        expected = min(keep, key=lambda i: (scored[i][0], -scored[i][1], i)) if keep else None
        assert answer == expected, (kind_name(tile), options, s0, u0, scored)
        ties += not keep and any(s == (s0, u0) for s in scored)
        better += bool(keep)
    assert ties >= 3 and better >= 3, (ties, better)


# ------------------------------------------------------------------ the payment bound (RULES §1)

LIMIT = 2**31 - 1          # the largest signed 32-bit integer: the largest payment allowed
ONES = {k: 1 for k in ("qingyise", "xiaoqidui", "gangshanghua", "qiangganghu", "gangshangpao")}

# (game, overrides whose largest single payment is exactly 2^31 - 1, the same one more
# (exactly 2^31), the key the message names); each amount made a different way
EDGES = [
    # a value alone (refused by the check of each number, before the product is taken)
    ("wanzai", {"values.pinghu": [LIMIT, 1]}, {"values.pinghu": [2**31, 1]}, "values.pinghu"),
    # a value plus the piao addition (2 + 2) x base
    ("wanzai", {"values.pinghu": [LIMIT - 4, 1], "piao": [2, 2, 0, 0]},
     {"values.pinghu": [LIMIT - 3, 1], "piao": [2, 2, 0, 0]}, "values.pinghu"),
    # a value doubled by one seat's fire, plus piao 1 x base (fire doubles, piao adds)
    ("wanzai", {"values.pinghu": [2**30 - 1, 1], "fire": [0.5, 0, 0, 0], "piao": [1, 0, 0, 0]},
     {"values.pinghu": [2**30, 1], "fire": [0.5, 0, 0, 0]}, "values.pinghu"),
    # the dealer's doubling
    ("wanzai", {"values.pinghu": [2**30 - 1, 1], "dealer_pays_double": True, "piao": [0, 1, 0, 0]},
     {"values.pinghu": [2**30, 1], "dealer_pays_double": True}, "values.pinghu"),
    # a kong value (no piao on kongs), and the same doubled by fire
    ("wanzai", {"kong_values.concealed": LIMIT}, {"kong_values.concealed": 2**30, "fire": [0, 0, 0.5, 0]},
     "kong_values.concealed"),
    # Anhua: 硬莊's factor alone, and 2^30 times one bird
    ("anhua", {"multipliers": dict(ONES, yingzhuang=LIMIT), "birds": 0},
     {"multipliers": dict(ONES, yingzhuang=2**30), "birds": 1}, "multipliers.yingzhuang"),
    # a cap bounds any product: at the limit it is allowed, above it not
    ("anhua", {"multipliers.qi_wang": 2**24, "birds": 4, "score_cap": LIMIT},
     {"multipliers.qi_wang": 2**24, "birds": 4, "score_cap": LIMIT + 1}, "score_cap"),
    # the message blames the largest factor of the payment (instant_win_score 2^30 over base 2)
    ("anhua", {"instant_win_score": LIMIT}, {"instant_win_score": 2**30, "base": 2}, "instant_win_score"),
]


@pytest.mark.parametrize("game_name,at_limit,one_more,key", EDGES)
def test_the_largest_payment_may_be_2_31_minus_1_and_not_2_31(game_name, at_limit, one_more, key):
    """RULES §1 Units and bounds: a rules set whose largest single payment does not fit in a
    signed 32-bit integer is refused when loaded, naming the key -- 2,147,483,647 fits."""
    from mjsim.rulesets.rules import PAYMENT_LIMIT, RulesError, largest_payment

    assert PAYMENT_LIMIT == LIMIT
    rules = Rules.load(game_name, **at_limit)
    assert largest_payment(rules.as_dict(), game_name)[0] == LIMIT
    with pytest.raises(RulesError, match="32-bit") as err:
        Rules.load(game_name, **one_more)
    assert err.value.key == key and f"'{key}'" in str(err.value) and str(2**31) in str(err.value)


@pytest.mark.parametrize("game_name,key", [("wanzai", "fire_min_hands"), ("anhua", "kong_min_wall")])
def test_every_integer_parameter_fits_32_bits(game_name, key):
    """RULES §1: the native loop holds every rule number in 32 bits, so an integer parameter
    that is not a payment is bounded too: 2^31 - 1 is accepted (and plays), 2^31 refused."""
    from mjsim.rulesets.rules import RulesError

    rules = Rules.load(game_name, **{key: LIMIT})
    assert rules[key] == LIMIT
    assert game.play(rules, seed=2, players=("greedy",) * 4, log=False).end in ("draw", "self_draw", "discard",
                                                                                 "rob_kong", "instant")
    with pytest.raises(RulesError, match="32-bit") as err:
        Rules.load(game_name, **{key: 2**31})
    assert err.value.key == key and str(2**31) in str(err.value)


def test_a_payment_of_2_31_minus_1_is_made_in_full():
    """The accepted edge plays: the dealer's complete opening hand (pinghu self-draw) at
    values.pinghu = [1, 2^31 - 1] pays that much from each of the three others."""
    rules = wanzai.FLAT.with_overrides(values={"pinghu": [1, LIMIT]})
    h = wanzai.play_script(rules, hands=["123m456m789m123p55p", None, None, None])
    (w,) = h.wins
    assert (w.pattern, w.points, w.received) == ("pinghu", LIMIT, 3 * LIMIT)
    assert h.deltas == (3 * LIMIT, -LIMIT, -LIMIT, -LIMIT)


# ------------------------------------------------------------------ ev: the special start and base

SPECIALS = ("qingyise", "xiaoqidui", "gangshanghua", "qiangganghu", "gangshangpao")


def _declared(h):
    return [e.seat for e in h.events if e.kind == "instant" and e.declared]


@pytest.mark.parametrize("base", [1, 2, 3])
def test_ev_declares_the_special_start_when_three_sure_payments_cover_the_hands_value(base):
    """RULES §3.3 特殊平胡: with `start` on (ev_v1's style; ev itself declares every special
    start, RULES §1), ev declares when the sure payment, from each of the three others,
    is worth at least the hand's EV.  Here seat 1 holds 四王 and no win of this hand can pay
    more than 8 x base per payer (no birds, the specials x1, 六王/七王 x8 like 四王; 硬莊 is 4),
    so 24 x base in all: with instant_win_score S from a third of that (S = 8) to all of it
    (S = 24) the sure 3 S x base covers the hand's value and ev must declare, at every base.
    At S = 1 (an eighth of it) ev keeps the four-wild hand; plain ev declares it even then."""
    rules = anhua.FLAT.with_overrides(birds=0, base=base,
                                      multipliers=dict({k: 1 for k in SPECIALS}, liu_wang=8, qi_wang=8))
    hands = [None, anhua.SI_WANG, None, None]
    wall = anhua.flat_wall(hands)
    for score in (1, *range(8, 25)):
        h = game.play(rules.with_overrides(instant_win_score=score), seed=1, players=("ev:start=1",) * 4,
                      dealer=0, wall=wall)
        assert [e.seat for e in h.events if e.kind == "instant"] == [1]
        assert _declared(h) == ([] if score == 1 else [1]), (score, base)
    h = game.play(rules.with_overrides(instant_win_score=1), seed=1, players=("ev",) * 4, dealer=0, wall=wall)
    assert _declared(h) == [1]


def _hands_and_wins(rules, hands, players, seed=5, session_hands=8):
    return game.simulate_chunk(rules, players, seed, 0, hands, session_hands)


def _same_play_at_base_1_and_3(rules, hands, players):
    """ev (and the others) make the same decisions at base 1 and 3: every column of the
    hands and wins tables but the amounts is identical, and the amounts are x3 (base only
    scales payments, RULES §1)."""
    h1, w1 = _hands_and_wins(rules.with_overrides(base=1), hands, players)
    h3, w3 = _hands_and_wins(rules.with_overrides(base=3), hands, players)
    for name in h1:
        want = 3 * h1[name] if name.startswith("delta_") else h1[name]
        assert (h3[name] == want).all(), name
    for name in w1:
        want = 3 * w1[name] if name in ("points", "received") else w1[name]
        assert (w3[name] == want).all(), name
    return h1, w1


EVERY_WILD_START = ["san_wang", "si_wang", "liu_wang", "qi_wang"]


@pytest.mark.parametrize("ev", ["ev", "ev:start=1"])
@pytest.mark.parametrize("score", [2, 6])
def test_ev_play_does_not_depend_on_base_anhua(score, ev):
    """Also with `start` on (ev_v1's style), where ev weighs the special start's sure
    payment against the hand's EV: both in units of base, so the choice cannot move with it."""
    rules = Rules.load("anhua", instant_win_categories=EVERY_WILD_START, instant_win_score=score)
    _, w = _same_play_at_base_1_and_3(rules, 400, (ev, ev, ev, "greedy"))
    assert (w["win_kind"] == game.WIN_KINDS.index("instant")).any()


def test_ev_play_does_not_depend_on_base_wanzai():
    rules = Rules.load("wanzai", piao=[1, 0, 2, 0], fire=[0.2, 0, 0, 0.2])
    _same_play_at_base_1_and_3(rules, 150, ("ev", "ev", "ev", "greedy"))


@pytest.mark.slow
@pytest.mark.parametrize("rules", [
    Rules.load("anhua", instant_win_categories=EVERY_WILD_START),
    Rules.load("anhua", instant_win_categories=EVERY_WILD_START, instant_win_score=6),
    Rules.load("wanzai", piao=[1, 0, 2, 0], fire=[0.2, 0, 0, 0.2]),
], ids=["anhua", "anhua-score6", "wanzai"])
def test_ev_play_does_not_depend_on_base_over_thousands_of_hands(rules):
    _same_play_at_base_1_and_3(rules, 3000, ("ev",) * 4)


# ------------------------------------------------------------------ resuming a finished run

def test_a_finished_run_with_a_short_last_chunk_resumes(tmp_path):
    """`--hands 150 --chunk 100` (sessions of 50) plans chunks of 100 and 50 hands, the last
    one shorter: run again, the finished run resumes by skipping both, rather than refusing
    its own short chunk as "a chunk of another plan"."""
    from mjsim.run import runner

    out = tmp_path / "run"
    spec = runner.make_spec(Rules.load("wanzai"), players="random", hands=150, chunk=100, session_hands=50, seed=4)
    assert list(runner.plan_chunks(spec)) == [(0, 100), (100, 50)]
    assert all(runner.chunk_in_plan(spec, s, c) for s, c in runner.plan_chunks(spec))
    assert not any(runner.chunk_in_plan(spec, s, c) for s, c in [(100, 100), (0, 50), (50, 50), (150, 50)])
    assert runner.n_chunks(spec) == 2
    first = runner.run(spec, out, workers=1, progress=False)
    assert (first.chunks_total, first.chunks_done, first.hands_done) == (2, 2, 150)
    names = sorted(p.name for p in (out / "hands").glob("*/*.parquet"))
    assert names == ["chunk-s4-000000000000-100.parquet", "chunk-s4-000000000100-50.parquet"]
    again = runner.run(spec, out, workers=1, progress=False)
    assert (again.chunks_total, again.chunks_done, again.chunks_skipped, again.hands_skipped) == (2, 0, 2, 150)


# ------------------------------------------------------------------ Anhua: a tie between readings

TIED = "112233m55p1s22s33s4s"   # indicator 9s: 1s is a type-B wild (單王)


def test_a_tie_between_the_readings_goes_to_yingzhuang_with_its_own_properties():
    """RULES §3.2: complete at face value (123m 123m 123s 234s 55p: 硬莊 4) and with the wild
    as a joker (小七對 of 單王: 平胡 1 x 2 x 小七對 2 = 4).  The tie goes to 硬莊 and the
    win's properties are those of the 硬莊 reading: no xiaoqidui."""
    rules = Rules.load("anhua")
    r = engine.evaluate(rules, TIED, win_tile="4s", wild="9s")
    assert (r.pattern, r.points, r.hard, r.properties) == ("yingzhuang", 4, True, frozenset({"dan_wang"}))
    # the wild reading is real: worth more, it is the one scored, with its properties
    r = engine.evaluate(rules.with_overrides(multipliers={"xiaoqidui": 3}), TIED, win_tile="4s", wild="9s")
    assert (r.pattern, r.points, r.hard, r.properties) == ("pinghu", 6, False, frozenset({"dan_wang", "xiaoqidui"}))
    # in play: the dealer's opening hand, a self-draw before any draw
    h = anhua.play_script(hands=[TIED, None, None, None], live="1m")   # bird 1m: the winner, x2
    (w,) = h.wins
    assert (w.winner, w.kind, w.pattern, w.points, w.hard) == (0, "self_draw", "yingzhuang", 4, True)
    assert w.properties == frozenset({"dan_wang"}) and "xiaoqidui" not in w.properties
    assert w.factors == (("yingzhuang", 4), ("bird", 2))


# ------------------------------------------------------------------ Anhua: the pair and the cap

@pytest.mark.parametrize("suit", ["m", "p"])
def test_anhua_standard_pair_is_a_2_5_or_8_of_any_suit(suit):
    """RULES §3.2: 4 melds + a pair of rank 2, 5 or 8 (pair_258 = true); any rank with
    pair_258 = false.  Four melds across two suits (no 清一色), no wild in hand (wilds 9s, 1s)."""
    rules = Rules.load("anhua")
    for rank in range(1, 10):
        hand = f"123456789m123p{rank}{rank}{suit}"
        r = engine.evaluate(rules, hand, win_tile=f"{rank}{suit}", wild="9s")
        assert r.win == (rank in (2, 5, 8)), hand
        if r.win:
            assert (r.pattern, r.points, r.category) == ("yingzhuang", 4, None)
        assert engine.evaluate(rules.with_overrides(pair_258=False), hand, win_tile=f"{rank}{suit}", wild="9s").win


@pytest.mark.parametrize("cap,points", [(3, 3), (4, 4), (5, 4), (0, 4)])
def test_anhua_score_cap_bounds_the_score_from_one_above(cap, points):
    """RULES §3.2: score_cap caps the score per paying player (0: no cap); a 硬莊 of 4 is
    paid 3 under a cap of 3, 4 under a cap of 4 or more."""
    r = engine.evaluate(Rules.load("anhua", score_cap=cap), "234567m888p234s55s", win_tile="5s", wild="1p")
    assert (r.pattern, r.points) == ("yingzhuang", points)


# ------------------------------------------------------------------ second audit (h2_ mutants)

def _rob_only(view, tile, kind):
    return kind == "rob_kong"


# seat 1 pungs seat 2's 9m, so seat 2 draws again before seat 3 and seat 0 have a turn
SEAT1_PUNGS_9M = "99m1p3p5s6m8m2s4s7s1m3m5m"


def test_anhua_a_seat_that_passed_a_win_on_a_kind_cannot_rob_a_kong_of_that_kind():
    """RULES §3.3 漏胡: a player who passes a discard win cannot win on a tile of the same kind
    until it has completed its own turn -- robbing an added kong of that kind included.  Seat 3
    waits on 7p and passes the dealer's 7p; seat 2 pungs it and discards 9m, seat 1 pungs that,
    and seat 2 draws the last 7p and adds it to its pung before seat 3 has had a turn: seat 3
    may not rob the kong.  With pass_ron_lock = "none" the same seat robs it."""
    def players():
        return [anhua.Script(discards=["7p"]), anhua.Script(discards=["1p"], claims={"9m": "pung"}),
                anhua.Script(discards=["9m"], claims={"7p": "pung"}), anhua.Script(wins=_rob_only)]

    hands = [anhua.ROB_HANDS[0], SEAT1_PUNGS_9M, anhua.ROB_HANDS[2], anhua.ROB_HANDS[3]]
    live = "7p" + "2m8p3p" + "4m"       # seat 2's draw, its 補章 (no win for anyone), a bird
    h = anhua.play_script(hands=hands, players=players(), live=live)
    assert [(e.kind, e.seat, e.tile) for e in anhua.events(h, "pass_win", "pung", "kong", "robbed")][:4] == [
        ("pass_win", 3, "7p"), ("pung", 2, "7p"), ("pung", 1, "9m"), ("kong", 2, "7p")]
    assert not anhua.events(h, "robbed") and not any(w.kind == "rob_kong" for w in h.wins)
    h = anhua.play_script(anhua.FLAT.with_overrides(pass_ron_lock="none"), hands=hands, players=players(), live=live)
    assert [(w.winner, w.payer, w.kind, w.tile) for w in h.wins] == [(3, 2, "rob_kong", "7p")]


def test_anhua_rob_kong_with_a_single_wild_substituting():
    """RULES §3.3 搶槓胡: a player with no wild or 單王 may rob an added kong, the wild
    substituting (unlike a discard win).  Seat 3 holds 68p and 8s + the wild 1s (indicator
    9s): with 7p it is complete only with the 1s standing in for an 8s, so it is not offered
    the dealer's 7p, and robs seat 2's added kong of 7p: 平胡 x 單王 2 x 搶槓胡 2."""
    hands = [anhua.ROB_HANDS[0], None, anhua.ROB_HANDS[2], "68p234m567m345s8s1s"]
    players = [anhua.Script(discards=["7p"]), anhua.Script(), anhua.Script(discards=["9m"], claims={"7p": "pung"}),
               anhua.Script(discards=["drawn"], wins=_rob_only)]
    h = anhua.play_script(hands=hands, players=players, live=anhua.ROB_LIVE)
    assert not anhua.events(h, "pass_win")
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile, w.pattern, w.category, w.hard) == (
        3, 2, "rob_kong", "7p", "pinghu", "dan_wang", False)
    assert w.points == 1 * 2 * 2 and "qiangganghu" in w.properties


def test_anhua_gangshangpao_with_a_single_wild_substituting():
    """RULES §3.4 槓上炮, eligibility as 搶槓胡 (no wild or 單王, the wild substituting).  The
    dealer kongs 2m and its 補章 brings 4s 2p 7m, none its own win; seat 2 holds one wild (1s,
    at face value in 123s) and is complete with the 4s only with the 1s as a joker: it wins
    平胡 x 單王 2 x 槓上炮 2, paid by the kong player."""
    h = anhua.play_script(hands=anhua.GSP_HANDS, live="4s2p7m" + "3m")
    (w,) = h.wins
    assert (w.winner, w.payer, w.kind, w.tile, w.pattern, w.category, w.hard) == (
        2, 0, "gangshangpao", "4s", "pinghu", "dan_wang", False)
    assert w.points == 1 * 2 * 2


def test_anhua_a_seat_that_passed_a_win_on_a_kind_cannot_win_a_buzhang_tile_of_that_kind():
    """RULES §3.3 漏胡 (same kind) covers 槓上炮: seat 2 waits on 2p/5p and passes the dealer's
    5p; seat 1 then draws and kongs 2m (tenpai before and after), and its 補章's first tile is
    the 5p: seat 2, which has not had a turn since, may not win on it and draws as usual.
    With pass_ron_lock = "none" it wins 槓上炮 on that 5p."""
    def players():
        return [anhua.Script(discards=["5p"]), anhua.Script(),
                anhua.Script(wins=lambda view, tile, kind: kind != "discard"), anhua.Script()]

    hands = ["5p345s678s234p678p9m", "2222m345m678m789p", "34p456m789m234s55s", None]
    live = "8p" + "5p7m6s" + "3m"       # seat 1's draw, its 補章, then seat 2's draw
    h = anhua.play_script(hands=hands, players=players(), live=live)
    assert [(e.kind, e.seat, e.tile) for e in anhua.events(h, "pass_win", "kong", "win")][:2] == [
        ("pass_win", 2, "5p"), ("kong", 1, "2m")]
    assert anhua.events(h, "buzhang")[0].tiles == "5p7m6s"
    assert not any(w.kind == "gangshangpao" for w in h.wins)
    after = h.events.index(anhua.events(h, "locked")[0])
    assert (h.events[after + 1].kind, h.events[after + 1].seat) == ("draw", 2)
    h = anhua.play_script(anhua.FLAT.with_overrides(pass_ron_lock="none"), hands=hands, players=players(), live=live)
    assert [(w.winner, w.payer, w.kind, w.tile) for w in h.wins] == [(2, 1, "gangshangpao", "5p")]


def test_anhua_a_kong_needs_the_hand_before_the_draw_tenpai():
    """RULES §3.4: a kong needs the player tenpai before it, "before" being the 13-tile hand
    before the draw.  Seat 1 holds 2222m345m678m5p8p9p (not tenpai) and draws 7p: the hand
    after a kong of 2m (345m678m789p + 5p) is tenpai, and so would be the 14 tiles less a
    2m, but no kong is offered.  Holding 2222m345m678m789p (tenpai) and drawing 5p, with the
    same hand after the kong, it is."""
    offered = {}
    for hand, draw in (("2222m345m678m5p8p9p", "7p"), ("2222m345m678m789p", "5p")):
        seat1 = anhua.Script(discards=["drawn"])
        anhua.play_script(hands=["456m789m345s678s1p9p", hand, None, None],
                          players=[anhua.Script(discards=["1p"]), seat1, anhua.Script(), anhua.Script()], live=draw)
        drawn, options = seat1.turns[0]
        assert kind_name(drawn) == draw
        offered[hand] = [o for o in options if o[0] != "discard"]
    assert offered == {"2222m345m678m5p8p9p": [], "2222m345m678m789p": [("concealed_kong", parse_tile("2m"))]}


def test_wanzai_next_on_loss_a_dealer_who_is_one_of_several_winners_deals_again():
    """RULES §2.6 dealer_next = "next_on_loss": the dealer who does not lose keeps the deal,
    also as the second of two winners on one discard.  Dealer seat 1 discards 1s, then seat 2
    discards 7z and seats 0 and 1 both win on it (一炮多響): seat 1 deals again.  Under
    "winner" the first winner after the discarder (seat 0) deals."""
    hands = ["56z123s456s789s22p", "7z234p567p678p999m1s", "123m456m789m13p59s", None]
    for rules, next_dealer in ((wanzai.FLAT.with_overrides(dealer_next="next_on_loss"), 1), (wanzai.FLAT, 0)):
        players = [Script(), Script(discards=["1s"]), Script(discards=["drawn"]), Script()]
        h = wanzai.play_script(rules, dealer=1, hands=hands, players=players, live="7z")
        assert [(w.winner, w.payer, w.tile) for w in h.wins] == [(0, 2, "7z"), (1, 2, "7z")]
        assert (h.dealer, h.next_dealer) == (1, next_dealer)


class MeldSeenProbe(SeenProbe):
    """SeenProbe that also counts, per decision, the kinds of exposed meld on the table."""

    def __init__(self):
        super().__init__()
        self.meld_kinds = Counter()

    def _record(self, view):
        super()._record(view)
        self.meld_kinds.update({kind for seat_melds in view.melds for kind, _ in seat_melds})


def test_wanzai_every_tile_shown_on_the_table_counts_as_seen():
    """The tiles a player sees (view.seen, from which greedy and ev count the unseen copies)
    are the discards in the pools and every exposed meld's tiles: a pung's three, a chow's,
    an exposed kong's four and an added kong's four (not a concealed kong).  Checked at every
    decision of greedy Wanzai hands in which exposed and added kongs are made."""
    probes = [MeldSeenProbe() for _ in range(4)]
    rules = Rules.load("wanzai")
    for i in range(60):
        game.play(rules, seed=3, hand_index=i, players=probes, log=False)
    records = [r for p in probes for r in p.records]
    for indicator, seen, shown in records:
        assert indicator is None and seen == [shown[k] for k in range(34)], (seen, shown)
    kinds = sum((p.meld_kinds for p in probes), Counter())
    assert kinds["kong"] >= 20 and kinds["added_kong"] >= 5, kinds


def test_anhua_birds_are_fewer_not_none_when_the_wall_runs_short():
    """RULES §3.5: with birds = n, take n tiles, fewer if the wall runs out.  Players that take
    a win only when one live tile is left: with birds = 2 each such win has exactly one bird,
    which empties the wall."""
    late = [anhua.Script(wins=lambda view, tile, kind: view.wall_left == 1) for _ in range(4)]
    rules = Rules.load("anhua", birds=2)
    found = 0
    for i in range(60):
        h = game.play(rules, seed=5, hand_index=i, players=late)
        anhua.check_record(h, rules)
        if h.wins:
            assert len(h.birds) == 1 and h.wall == "", (i, h.birds, h.wall)
            found += 1
    assert found >= 10

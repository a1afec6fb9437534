"""The native Wanzai hand loop: scripted walls for each rule, invariants over seeded hands."""
from collections import Counter

import numpy as np
import pytest

from mjsim.play import game
from mjsim.core import _testing
from mjsim.rulesets.rules import Rules
from mjsim.players import Player
from mjsim.tiles import kind_name, parse_tiles
from pass_once import PassOnce
from walls import flat_wall

FLAT = Rules.load("wanzai", wall_model="flat")
GREEDY = ("greedy",) * 4


def events(h, *kinds):
    return [e for e in h.events if e.kind in kinds]


def play_script(rules=FLAT, dealer=0, players=GREEDY, **kw):
    hands = kw.pop("hands")
    # hands are given by seat; the wall deals from the dealer in play order
    in_order = [hands[(dealer + i) % 4] for i in range(4)]
    wall = flat_wall(in_order, kw.pop("live", ""), kw.pop("tail", ""))
    return game.play(rules, seed=1, hand_index=0, players=players, dealer=dealer, wall=wall, **kw)


# ------------------------------------------------------------------ scripted hands

def test_dealer_opening_hand_complete_is_a_self_draw_win():
    h = play_script(hands=["123m456m789m123p55p", None, None, None])
    assert h.events[0].kind == "win" and h.events[0].seat == 0
    assert h.end == "self_draw" and h.draws == 0
    (w,) = h.wins
    assert (w.winner, w.payer, w.pattern, w.points) == (0, None, "pinghu", 1)
    assert h.deltas == (3, -1, -1, -1)
    assert h.next_dealer == 0


DEALER_DISCARDS_WHITE = "123m456m789m13p59s7z"   # 7z (白) is the dealer's least useful tile


def test_pung_claim_skips_the_next_players():
    h = play_script(hands=[DEALER_DISCARDS_WHITE, None, "123p456p78s77z149m", None])
    first = h.events[:3]
    assert (first[0].kind, first[0].seat, first[0].tile) == ("discard", 0, "7z")
    assert (first[1].kind, first[1].seat, first[1].tile, first[1].from_seat) == ("pung", 2, "7z", 0)
    assert (first[2].kind, first[2].seat) == ("discard", 2)   # no draw after a pung
    assert "pung:777z" in h.melds[2]


def test_honor_chow_of_dragons_by_next_player():
    h = play_script(hands=[DEALER_DISCARDS_WHITE, "56z123s456s8s159p9m", None, None])
    chow = h.events[1]
    assert (chow.kind, chow.seat, chow.tile, chow.from_seat) == ("chow", 1, "7z", 0)
    assert "chow:567z" in h.melds[1]
    assert (h.events[2].kind, h.events[2].seat) == ("discard", 1)


def test_honor_chow_off_means_no_chow():
    rules = FLAT.with_overrides(honor_chow=False)
    h = play_script(rules, hands=[DEALER_DISCARDS_WHITE, "56z123s456s8s159p9m", None, None])
    assert not events(h, "chow") or events(h, "chow")[0].tile != "7z"
    assert h.events[1].kind == "draw"


def test_suited_chow_by_next_player():
    h = play_script(hands=["123m456m789m11p239s", "78s456p789p258m15z", None, None])
    assert (h.events[0].kind, h.events[0].tile) == ("discard", "9s")
    chow = h.events[1]
    assert (chow.kind, chow.seat, chow.tile, chow.tiles) == ("chow", 1, "9s", "78s")
    assert "chow:789s" in h.melds[1]


class Offers(Player):
    """Greedy, but records the claims it is offered and passes them."""

    def __init__(self):
        self.offers = []

    def turn(self, view, options):
        return view.builtin("greedy")

    def claim(self, view, tile, options):
        self.offers.append((kind_name(tile), options))
        return None

    def win(self, view, tile, kind):
        return True


def test_only_next_player_may_chow():
    # seat 2 holds 78s too, but it is not the discarder's 下家
    h = play_script(hands=["123m456m789m11p239s", None, "78s456p789p258m15z", None])
    assert h.events[1].kind == "draw" and h.events[1].seat == 1
    # ... and with 99s as well it is asked about the dealer's 9s, offered the pung only
    opposite = Offers()
    h = play_script(hands=["123m456m789m11p239s", None, "78s99s456p789p258m", None],
                    players=("greedy", "greedy", opposite, "greedy"))
    assert h.events[0].kind == "discard" and h.events[0].tile == "9s"
    assert opposite.offers[0] == ("9s", [("pung",)])


def kong_payments_after(h, kong_event):
    i = h.events.index(kong_event)
    out = []
    for e in h.events[i + 1:]:
        if e.kind != "payment":
            break
        out.append((e.seat, e.to_seat, e.amount, e.reason))
    return out


def test_concealed_kong_each_other_pays_two_then_replacement():
    h = play_script(hands=["1111z123m456m789m5p", None, None, None], tail="3z")
    kong = h.events[0]
    assert (kong.kind, kong.seat, kong.tile, kong.kong) == ("kong", 0, "1z", "concealed")
    assert kong_payments_after(h, kong) == [(1, 0, 2, "kong_concealed"), (2, 0, 2, "kong_concealed"),
                                            (3, 0, 2, "kong_concealed")]
    draw = h.events[4]
    assert (draw.kind, draw.seat, draw.tile, draw.replacement) == ("draw", 0, "3z", True)
    assert h.kongs["concealed"] >= 1


def test_exposed_kong_discarder_pays_two():
    h = play_script(hands=[DEALER_DISCARDS_WHITE, None, "777z123p456p78s19m", None], tail="4z")
    kong = h.events[1]
    assert (kong.kind, kong.seat, kong.tile, kong.kong, kong.from_seat) == ("kong", 2, "7z", "exposed", 0)
    assert kong_payments_after(h, kong) == [(0, 2, 2, "kong_exposed")]
    draw = h.events[3]
    assert (draw.kind, draw.seat, draw.tile, draw.replacement) == ("draw", 2, "4z", True)


# seat 2 pungs the dealer's 7z, then draws the last 7z; seat 3 draws 6z and waits on 中發白
ADDED_KONG_HANDS = [DEALER_DISCARDS_WHITE, "1m4m7m1p4p7p3s6s9s258p9m", "123p456p78s77z149m", "5z123s456s789s22p4z"]
ADDED_KONG_LIVE = "6z" + "9p" + "2z" + "7z"


def test_added_kong_on_the_drawn_tile_each_other_pays_one():
    hands = list(ADDED_KONG_HANDS)
    hands[3] = "111s222s444s33m66m"  # nobody waits on 7z; no four of a kind (greedy would kong it)
    h = play_script(hands=hands, live=ADDED_KONG_LIVE, tail="3z")
    kongs = events(h, "kong")
    assert kongs and (kongs[0].seat, kongs[0].tile, kongs[0].kong) == (2, "7z", "added")
    assert kong_payments_after(h, kongs[0]) == [(3, 2, 1, "kong_added"), (0, 2, 1, "kong_added"),
                                                (1, 2, 1, "kong_added")]
    assert "added_kong:7777z" in h.melds[2]


def test_robbing_an_added_kong_robbed_player_pays_all_three_shares():
    h = play_script(hands=ADDED_KONG_HANDS, live=ADDED_KONG_LIVE)
    assert h.end == "rob_kong"
    robbed = events(h, "robbed")
    assert robbed and (robbed[0].seat, robbed[0].tile) == (2, "7z")
    (w,) = h.wins
    assert (w.winner, w.payer, w.tile) == (3, 2, "7z")
    assert w.kind == "rob_kong"
    assert w.points == 1                        # pinghu scored as a self-draw
    assert w.received == 3                      # all three shares from the robbed player
    assert h.deltas == (0, 0, -3, 3)            # and the robbed kong pays nothing
    assert not events(h, "kong")


def test_robbed_player_pays_each_share_with_that_share_payers_factors():
    """RULES §2.5: each of the three shares is computed with its payer's fire, piao and
    dealer factor, not the robbed seat's.  Winner seat 3 (piao 0), pinghu self 1:
    seat 0 (dealer, piao 1): 1 x 2 + 1 = 3; seat 1 (piao 2): 1 + 2 = 3; seat 2, the robbed
    seat (piao 1): 1 + 1 = 2 -- 8 in all (priced as the robbed seat's three times: 6)."""
    rules = FLAT.with_overrides(piao=[1, 2, 1, 0], dealer_pays_double=True)
    h = play_script(rules, hands=ADDED_KONG_HANDS, live=ADDED_KONG_LIVE)
    assert h.end == "rob_kong" and h.dealer == 0
    assert sorted(p.amount for p in h.payments) == [2, 3, 3]
    assert all((p.payer, p.receiver) == (2, 3) for p in h.payments)
    assert h.deltas == (0, 0, -8, 8)
    # fire on seat 1 doubles its share only: 1 x 2 + 2 = 4
    h = play_script(rules.with_overrides(fire=[0.0, 1.0, 0.0, 0.0]), hands=ADDED_KONG_HANDS, live=ADDED_KONG_LIVE)
    assert h.deltas == (0, 0, -9, 9)


def test_robbing_with_rob_kong_pays_one():
    h = play_script(FLAT.with_overrides(rob_kong_pays="one"), hands=ADDED_KONG_HANDS, live=ADDED_KONG_LIVE)
    assert h.end == "rob_kong"
    assert h.deltas == (0, 0, -1, 1)


# Seat 2 deals and discards 7z; seats 0 and 1 both wait on it (RULES §2.5 飄 example:
# A = seat 0, B = seat 1, C = seat 2, D = seat 3).
TWO_WINNERS = ["56z123s456s789s22p", "7z234p567p678p999m", DEALER_DISCARDS_WHITE, None]


def test_two_winners_on_one_discard_with_piao_example():
    rules = FLAT.with_overrides(piao=[1, 2, 1, 0])
    h = play_script(rules, dealer=2, hands=TWO_WINNERS)
    assert h.end == "discard"
    assert [(w.winner, w.payer, w.pattern, w.points) for w in h.wins] == [(0, 2, "pinghu", 2), (1, 2, "pinghu", 2)]
    # the document: C deals in to A and B -> C adds 2 to A and 3 to B
    assert [w.received for w in h.wins] == [2 + 2, 2 + 3]
    assert h.deltas == (4, 5, -9, 0)
    assert h.next_dealer == 0            # first winner after the discarder in play order


def test_single_winner_when_multiple_ron_is_off():
    rules = FLAT.with_overrides(multiple_ron=False)
    h = play_script(rules, dealer=2, hands=TWO_WINNERS)
    assert [w.winner for w in h.wins] == [0]
    assert h.deltas == (2, 0, -2, 0)


def test_dealer_next_on_loss():
    rules = FLAT.with_overrides(dealer_next="next_on_loss")
    h = play_script(rules, dealer=2, hands=TWO_WINNERS)
    assert h.next_dealer == 3


def test_piao_self_draw_example():
    # B (seat 1) self-draws: A adds 3, C adds 3, D adds 2 (RULES §2.5)
    rules = FLAT.with_overrides(piao=[1, 2, 1, 0])
    h = play_script(rules, dealer=1, hands=[None, "123m456m789m123p55p", None, None])
    assert h.end == "self_draw"
    pays = {e.seat: e.amount for e in events(h, "payment")}
    assert pays == {0: 1 + 3, 2: 1 + 3, 3: 1 + 2}


def test_fire_and_dealer_doubling_multiply_payments():
    # the dealer (seat 0, always on fire) deals in to seat 1: 2 x 2^(1+0) x 2 (dealer pays double)
    rules = FLAT.with_overrides(fire=[1.0, 0.0, 0.0, 0.0], dealer_pays_double=True)
    h = play_script(rules, hands=[DEALER_DISCARDS_WHITE, "56z123s456s789s22p", None, None])
    assert h.fire == (1, 0, 0, 0)
    (w,) = h.wins
    assert (w.winner, w.payer, w.points, w.received) == (1, 0, 2, 8)
    assert h.deltas == (-8, 8, 0, 0)


def test_fire_on_both_sides():
    rules = FLAT.with_overrides(fire=[1.0, 1.0, 0.0, 0.0])
    h = play_script(rules, hands=[DEALER_DISCARDS_WHITE, "56z123s456s789s22p", None, None])
    assert h.deltas == (-8, 8, 0, 0)   # 2 x 2^(1+1)


# 漏胡: seat 1 waits on 3s/6s and passes the dealer's 3s; seat 3 pungs it and discards 6s
# before seat 1 has discarded again.
LOCK_HANDS = ["123m456m789m111p5p3s", "45s123p456p789p22m", None, "33s234p678p222z6s9m"]
LOCK_PLAYERS = ("greedy", PassOnce(), "greedy", "greedy")


@pytest.mark.parametrize("lock,wins", [("until_own_discard", False), ("none", True),
                                       ("same_kind_until_own_discard", True)])
def test_pass_ron_lock(lock, wins):
    rules = FLAT.with_overrides(pass_ron_lock=lock)
    h = play_script(rules, players=LOCK_PLAYERS, hands=LOCK_HANDS)
    assert [(e.kind, e.seat, e.tile) for e in h.events[:5]] == [
        ("discard", 0, "3s"), ("pass_win", 1, "3s"), ("pung", 3, "3s"), ("discard", 3, "6s"),
        ("win", 1, "6s") if wins else ("draw", 0, h.events[4].tile)]


def test_pass_ron_lock_ends_with_the_seats_own_discard():
    """漏胡 lasts until the seat's own next discard, then it may win on discards again:
    seats that passed a discard win, then discarded, go on to win on a later discard."""
    rules = Rules.load("wanzai")
    players = (PassOnce(),) * 4
    lifted = locked = 0
    for i in range(150):
        h = game.play(rules, seed=21, hand_index=i, players=players)
        state = {}
        for e in h.events:
            if e.kind == "pass_win":
                state[e.seat] = "locked"
            elif e.kind == "discard" and state.get(e.seat) == "locked":
                state[e.seat] = "lifted"
            elif e.kind == "win" and e.from_seat is not None:
                lifted += state.get(e.seat) == "lifted"
                locked += state.get(e.seat) == "locked"
    assert locked == 0 and lifted >= 20


RANDOM = ("random",) * 4


def test_exhaustive_draw_keeps_kong_payments():
    # random players rarely win, so most of their hands run the wall out
    res = game.simulate_hands(Rules.load("wanzai"), seed=3, start=0, count=200, players=RANDOM)
    kongs = res["kongs_added"] + res["kongs_exposed"] + res["kongs_concealed"]
    picks = np.flatnonzero((res["end"] == 0) & (kongs > 0))
    assert len(picks) >= 3
    for i in picks[:5]:
        h = game.play(Rules.load("wanzai"), seed=3, hand_index=int(i), players=RANDOM)
        assert h.end == "draw" and not h.wins and h.wall == ""
        assert h.deltas == tuple(expected_kong_deltas(h))
        assert any(h.deltas)
        off = game.play(Rules.load("wanzai", kong_pay_on_draw=False), seed=3, hand_index=int(i), players=RANDOM)
        assert off.deltas == (0, 0, 0, 0)
        assert any(e.reason == "kong_refund" for e in events(off, "payment"))


def expected_kong_deltas(h):
    """Kong payments from the kong events alone (no fire, no dealer doubling)."""
    d = [0, 0, 0, 0]
    for e in events(h, "kong"):
        if e.kong == "exposed":
            d[e.from_seat] -= 2
            d[e.seat] += 2
        else:
            amount = 1 if e.kong == "added" else 2
            for q in range(4):
                if q != e.seat:
                    d[q] -= amount
                    d[e.seat] += amount
    return d


# ------------------------------------------------------------------ invariants

def tile_count(text):
    return Counter(parse_tiles(text)) if text else Counter()


@pytest.mark.parametrize("players", [GREEDY, ("random",) * 4, ("greedy", "random", PassOnce(), "random")])
def test_invariants_over_seeded_hands(players):
    rules = Rules.load("wanzai")
    n = 700
    batch, wins = game.simulate_chunk(rules, players, seed=42, start=1000, count=n)
    deltas = np.stack([batch[f"delta_{s}"] for s in range(4)], axis=1)
    assert (deltas.sum(axis=1) == 0).all()
    assert (wins["received"] > 0).all() and len(wins["hand_index"]) == batch["n_winners"].sum()
    for i in range(n):
        h = game.play(rules, seed=42, hand_index=1000 + i, players=players, log=(i % 2 == 0))
        total = Counter()
        for s in range(4):
            total += tile_count(h.final[s]) + tile_count(h.discards[s])
            for m in h.melds[s]:
                total += tile_count(m.split(":")[1])
        total += tile_count(h.wall)
        assert all(total[k] == 4 for k in range(34)), (i, total)
        assert sum(h.deltas) == 0
        assert h.deltas == tuple(deltas[i])
        assert (h.end != "draw") == bool(batch["end"][i])
        live = sum(1 for e in h.events if e.kind == "draw" and not e.replacement)
        assert (h.dealer, sum(h.dice), h.fire) == (batch["dealer"][i], batch["dice"][i],
                                                    tuple(batch[f"fire_{s}"][i] for s in range(4)))
        if h.events:
            assert live == batch["draws"][i]
        # the record's live_draws is the dataset's draws; its draws add the replacements
        assert h.live_draws == batch["draws"][i]
        assert h.draws == h.live_draws + sum(h.kongs.values())
        assert sum(tile_count(h.wall).values()) == batch["wall_left"][i]
        assert [h.kongs[k] for k in game.KONG_NAMES] == [batch[f"kongs_{k}"][i] for k in game.KONG_NAMES]
        assert len(h.wins) == batch["n_winners"][i]
        rows = np.flatnonzero(wins["hand_index"] == 1000 + i)
        assert [(w.winner, w.points, w.received, w.kind) for w in h.wins] == [
            (wins["winner"][r], wins["points"][r], wins["received"][r], game.WIN_KINDS[wins["win_kind"][r]])
            for r in rows]
        if h.events:
            paid = [0, 0, 0, 0]
            for e in events(h, "payment"):
                paid[e.seat] -= e.amount
                if e.to_seat is not None:
                    paid[e.to_seat] += e.amount
            assert tuple(paid) == h.deltas


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("players,msg", [(("greedy",) * 3, "exactly 4"), (("greedy", "smart", "greedy", "greedy"), "unknown player 'smart'"),
                                         ("greedy", "sequence")])
def test_bad_players(players, msg):
    with pytest.raises(ValueError, match=msg):
        game.play(Rules.load("wanzai"), players=players)
    with pytest.raises(ValueError, match=msg):
        game.simulate_hands(Rules.load("wanzai"), 0, 0, 10, players=players)


def test_anhua_scripted_wall_has_108_suited_tiles():
    # Anhua is played natively too (tests/test_game_anhua.py); its wall has no honors
    with pytest.raises(ValueError, match="108"):
        game.play(Rules.load("anhua"), wall=list(range(34)) * 4)


def test_bad_seed_and_wall():
    with pytest.raises(ValueError, match="seed"):
        game.play(Rules.load("wanzai"), seed=-1)
    with pytest.raises(ValueError, match="dealer"):
        game.play(Rules.load("wanzai"), dealer=4)
    with pytest.raises(ValueError, match="136"):
        game.play(Rules.load("wanzai"), wall="123m")


def test_greedy_useful_tile_shortcut_matches_trying_every_kind():
    native = game._native(Rules.load("wanzai"), GREEDY)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n_pungs = int(rng.integers(0, 3))
        kinds = rng.permutation(34)
        pungs = [int(k) for k in kinds[:n_pungs]]
        pool = [k for k in range(34) if k not in pungs for _ in range(4)]
        hand = rng.choice(pool, size=13 - 3 * n_pungs, replace=False)
        counts = np.bincount(hand, minlength=34).tolist()
        fast, every = _testing.useful_tiles_probe(native, counts, pungs)
        assert fast == every


# ------------------------------------------------------------------ sessions

def test_session_carries_dealer_and_fire_and_play_replays_it():
    rules = Rules.load("wanzai", fire=[0.5, 0.2, 0.0, 1.0], fire_min_hands=3)
    hands, _ = game.simulate_chunk(rules, GREEDY, seed=8, start=0, count=480, session_hands=16)
    dealer, nxt = hands["dealer"], None
    firsts = []
    for i in range(480):
        h = game.play(rules, seed=8, hand_index=i, players=GREEDY, log=False, session_hands=16)
        if hands["hand_in_session"][i] == 0:
            firsts.append(dealer[i])   # first_dealer = "random": drawn per session
        else:
            assert dealer[i] == nxt
        assert h.first_dealer == firsts[-1]
        assert (h.dealer, h.fire, h.deltas) == (
            dealer[i], tuple(hands[f"fire_{s}"][i] for s in range(4)), tuple(hands[f"delta_{s}"][i] for s in range(4)))
        nxt = h.next_dealer
    assert len(set(firsts)) == 4
    exact = 0
    for s, chance in enumerate((0.5, 0.2, 0.0, 1.0)):
        fire = hands[f"fire_{s}"].reshape(30, 16)
        for row in fire:
            # a run that ended inside the session lasted at least fire_min_hands hands, and
            # (chance < 1: afterwards decided afresh) often exactly that many
            runs = "".join(map(str, row)).split("0")
            ended = [len(r) for r in runs[:-1] if r]
            assert all(n >= 3 for n in ended), (s, row)
            exact += ended.count(3)
        if chance == 0.0:
            assert not fire.any()
        if chance == 1.0:
            assert fire.all()
    assert exact >= 10   # fire staying one hand too long would make this 0


@pytest.mark.parametrize("first", [0, 1, 2, 3])
def test_first_dealer_fixed_seat(first):
    rules = Rules.load("wanzai", first_dealer=first)
    hands, _ = game.simulate_chunk(rules, GREEDY, seed=2, start=0, count=160, session_hands=8)
    assert (hands["dealer"][hands["hand_in_session"] == 0] == first).all()
    assert game.play(rules, seed=2, hand_index=8, session_hands=8, log=False).dealer == first
    assert game.play(rules, seed=2, hand_index=13, session_hands=8, log=False).first_dealer == first


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_first_dealer_random_is_uniform_and_from_the_session_seed(rules_name):
    """RULES §1: drawn uniformly per session.  Chi-square goodness of fit (scipy) on 4,000
    sessions; the draw does not depend on the session length or the chunking."""
    from scipy.stats import chisquare

    rules = Rules.load(rules_name)
    hands, _ = game.simulate_chunk(rules, ("random",) * 4, seed=4, start=0, count=4000, session_hands=1)
    counts = np.bincount(hands["dealer"], minlength=4)
    assert chisquare(counts).pvalue > 0.001, counts
    # the first hand of a session of 4 starting at index 8 has the same dealer as hand 8 alone
    longer, _ = game.simulate_chunk(rules, ("random",) * 4, seed=4, start=8, count=8, session_hands=4)
    assert longer["dealer"][0] == hands["dealer"][8] and longer["dealer"][4] == hands["dealer"][12]
    # and it is not the hand's own shuffle: another seed, other first dealers
    other, _ = game.simulate_chunk(rules, ("random",) * 4, seed=5, start=0, count=400, session_hands=1)
    assert (other["dealer"] != hands["dealer"][:400]).mean() > 0.6


def test_independent_hands_fire_is_drawn_per_hand():
    rules = Rules.load("wanzai", fire=[0.5, 0.5, 0.5, 0.5], first_dealer=0)
    hands, _ = game.simulate_chunk(rules, GREEDY, seed=3, start=0, count=400)
    assert (hands["dealer"] == 0).all() and (hands["hand_in_session"] == 0).all()
    rate = np.mean([hands[f"fire_{s}"].mean() for s in range(4)])
    assert 0.4 < rate < 0.6


def test_chunk_must_start_a_session():
    with pytest.raises(ValueError, match="multiple of session_hands"):
        game.simulate_chunk(Rules.load("wanzai"), GREEDY, seed=1, start=3, count=8, session_hands=4)


# ------------------------------------------------------------------ Python player protocol

from mjsim.players import Builtin, Player  # noqa: E402


@pytest.mark.parametrize("names", [GREEDY, ("random",) * 4, ("greedy", "random", "greedy_v1", "random")])
def test_builtin_players_through_the_python_protocol_play_identical_hands(names):
    rules = Rules.load("wanzai")
    native, nw = game.simulate_chunk(rules, names, seed=21, start=0, count=60)
    wrapped, ww = game.simulate_chunk(rules, tuple(Builtin(n) for n in names), seed=21, start=0, count=60)
    for k in native:
        assert (native[k] == wrapped[k]).all(), k
    for k in nw:
        assert (nw[k] == ww[k]).all(), k
    a = game.play(rules, seed=21, hand_index=7, players=names)
    b = game.play(rules, seed=21, hand_index=7, players=tuple(Builtin(n) for n in names))
    assert a == b


@pytest.mark.parametrize("game_name", ["wanzai", "anhua"])
@pytest.mark.parametrize("names, wrap", [
    (("ev_v1", "ev", "ev:fold=1,claim=0.8", "ev_v1:mix=0.2"), (0, 1, 2, 3)),
    # search's rollouts play the other seats with their own options, which a Python seat's
    # view cannot know: only the search seat is wrapped
    (("search:samples=8,width=2", "ev_v1", "greedy", "ev:value=0.3"), (0,)),
])
def test_builtin_takes_any_player_name_with_options(game_name, names, wrap):
    """view.builtin takes a player as --players does (aliases, options): the wrapped seats
    play the native players' hands exactly, each with its own options."""
    rules = Rules.load(game_name)
    count = 16 if names[0].startswith("search") else 48
    native, nw = game.simulate_chunk(rules, names, seed=5, start=0, count=count)
    players = tuple(Builtin(n) if i in wrap else n for i, n in enumerate(names))
    wrapped, ww = game.simulate_chunk(rules, players, seed=5, start=0, count=count)
    for k in native:
        assert (native[k] == wrapped[k]).all(), k
    for k in nw:
        assert (nw[k] == ww[k]).all(), k


@pytest.mark.parametrize("name, message", [
    ("ev_v2", "unknown built-in player 'ev_v2'"),
    ("ev:fold=99", "fold must be"),
    ("greedy:fold=1", "takes no options"),
    (3, "a player name is a string"),
])
def test_builtin_names_a_bad_player(name, message):
    class Asks(Player):
        def turn(self, view, options):
            return view.builtin(name)

    with pytest.raises(ValueError, match=message):
        game.play(Rules.load("wanzai"), seed=1, players=(Asks(), "greedy", "greedy", "greedy"))


class NeverClaims(Player):
    """Discards its highest kind, never claims: every decision is checked against the view."""

    def __init__(self):
        self.asked = {"turn": 0, "claim": 0, "win": 0}
        self.discarded = []

    def turn(self, view, options):
        self.asked["turn"] += 1
        held = [k for k, n in enumerate(view.hand) if n]
        assert sorted(k for kind, k in options if kind == "discard") == held
        self.discarded.append(held[-1])
        return ("discard", held[-1])

    def claim(self, view, tile, options):
        self.asked["claim"] += 1
        return None

    def win(self, view, tile, kind):
        self.asked["win"] += 1
        return True


def test_a_custom_python_player_is_asked_and_obeyed():
    asked = 0
    for hand_index in range(4):
        p = NeverClaims()
        h = game.play(Rules.load("wanzai"), seed=4, hand_index=hand_index, players=(p, "greedy", "greedy", "greedy"))
        assert p.asked["turn"] >= 1
        assert not any(e.kind in ("pung", "chow", "kong") and e.seat == 0 for e in h.events)
        mine = [e.tile for e in h.events if e.kind == "discard" and e.seat == 0]
        assert mine == [kind_name(k) for k in p.discarded]
        asked += p.asked["turn"]
    assert asked > 5


class Illegal(Player):
    def turn(self, view, options):
        return ("discard", 99)


class Broken(Player):
    def turn(self, view, options):
        raise KeyError("my bug")


def test_python_player_errors_surface_as_exceptions():
    rules = Rules.load("wanzai")
    with pytest.raises(ValueError, match="not one of"):
        game.play(rules, seed=1, hand_index=0, players=(Illegal(), "greedy", "greedy", "greedy"))
    with pytest.raises(KeyError, match="my bug"):
        game.simulate_chunk(rules, (Broken(), "greedy", "greedy", "greedy"), seed=1, start=0, count=3)
    with pytest.raises(ValueError, match="turn/claim/win"):
        game.play(rules, players=(object(), "greedy", "greedy", "greedy"))
    with pytest.raises(ValueError, match=r"seat 1: a Python player is an instance, not the class: pass Illegal\(\)"):
        game.play(rules, players=("greedy", Illegal, "greedy", "greedy"))
    with pytest.raises(ValueError, match=r"unknown built-in player 'gredy' \(built-ins: random, greedy"):
        game.play(rules, players=(Builtin("gredy"), "greedy", "greedy", "greedy"))


class Answers(Player):
    """Plays greedy's decisions, answered in the given shapes."""

    def __init__(self, turn=lambda a: a, claim=lambda a: a):
        self.shape_turn, self.shape_claim = turn, claim

    def turn(self, view, options):
        return self.shape_turn(view.builtin("greedy"))

    def claim(self, view, tile, options):
        return self.shape_claim(view.builtin("greedy"))


def test_python_player_answers_numpy_indices_and_is_told_what_a_bad_answer_was():
    rules = Rules.load("wanzai")
    seats = ("greedy",) * 4
    native = game.simulate_chunk(rules, seats, seed=1, start=0, count=8)
    # a claim picked with np.argmax (a numpy integer) and a discard kind read off a numpy array
    numpy_answers = Answers(turn=lambda a: [a[0], np.int64(a[1])],
                            claim=lambda a: None if a is None else np.intp(a))
    mine = game.simulate_chunk(rules, (numpy_answers,) * 4, seed=1, start=0, count=8)
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(native, mine) for k in a)
    for bad in (None, 5, "discard"):
        with pytest.raises(ValueError, match=r"seat 0: turn\(\) returned .*, not one of \[\('discard'"):
            game.play(rules, seed=1, players=(Answers(turn=lambda a, bad=bad: bad), "greedy", "greedy", "greedy"))
    # a kind that only equals an option's, a float or a bool (True == 1), is refused, not read as it
    with pytest.raises(ValueError, match=r"seat 0: turn\(\) returned \('discard', \d+\.0\)"):
        game.play(rules, seed=1, players=(Answers(turn=lambda a: (a[0], float(a[1]))), "greedy", "greedy", "greedy"))
    with pytest.raises(ValueError, match=r"seat 0: turn\(\) returned \('discard', (True|False)\)"):
        game.simulate_chunk(rules, (BoolKinds(), "greedy", "greedy", "greedy"), seed=1, start=0, count=20)


class BoolKinds(Player):
    """Discards 1m or 2m, when it may, as the bool that equals its kind."""

    def turn(self, view, options):
        for k in (0, 1):
            if ("discard", k) in options:
                return ("discard", bool(k))
        return view.builtin("greedy")


class Wins(Player):
    def __init__(self, answer):
        self.answer = answer

    def win(self, view, tile, kind):
        return self.answer


def test_a_win_answer_is_true_or_false():
    """win() answered "no", 2 or None was read by its truth: "no" took the win. Only True
    and False (numpy's too) are answers; anything else stops the hand, naming it."""
    rules = Rules.load("wanzai")
    native = game.simulate_chunk(rules, ("greedy",) * 4, seed=4, start=0, count=40)
    for yes in (True, np.True_):
        mine = game.simulate_chunk(rules, (Wins(yes), "greedy", "greedy", "greedy"), seed=4, start=0, count=40)
        assert all(np.array_equal(a[k], b[k]) for a, b in zip(native, mine) for k in a)
    passing = game.simulate_chunk(rules, (Wins(np.False_), "greedy", "greedy", "greedy"), seed=4, start=0, count=40)
    assert 0 not in passing[1]["winner"]
    for bad in ("no", "False", 2, 0, None, [], 1.0):
        with pytest.raises(ValueError, match=r"seat 0: win\(\) returned .*; expected True .* or False"):
            game.simulate_chunk(rules, (Wins(bad), "greedy", "greedy", "greedy"), seed=4, start=0, count=40)


# ------------------------------------------------------------------ parameters with non-default values

@pytest.mark.parametrize("base", [1, 2, 5])
def test_kong_payments_are_in_units_of_base(base):
    """RULES §2.4: kong payments are in 番, like win values: x base."""
    rules = FLAT.with_overrides(base=base)
    h = play_script(rules, hands=[DEALER_DISCARDS_WHITE, None, "777z123p456p78s19m", None], tail="4z")
    kong = h.events[1]
    assert kong.kong == "exposed" and kong_payments_after(h, kong) == [(0, 2, 2 * base, "kong_exposed")]
    hands = list(ADDED_KONG_HANDS)
    hands[3] = "111s222s444s33m66m"  # as in the added-kong test: no four of a kind for greedy to kong
    h = play_script(rules, hands=hands, live=ADDED_KONG_LIVE, tail="3z")
    kong = next(e for e in events(h, "kong") if e.kong == "added")
    assert (kong.seat, kong.tile) == (2, "7z") and [a for _, _, a, _ in kong_payments_after(h, kong)] == [base] * 3
    h = play_script(rules, hands=["1111z123m456m789m5p", None, None, None], tail="3z")
    assert [a for _, _, a, _ in kong_payments_after(h, h.events[0])] == [2 * base] * 3


def test_piao_additions_are_in_units_of_base():
    """RULES §2.5: each win payment adds (piao[p] + piao[r]) x base; with base 3 the
    document's 飄 example triples: C deals in to A and B -> 2 x 3 + 2 x 3 to A, 2 x 3 + 3 x 3 to B."""
    rules = FLAT.with_overrides(piao=[1, 2, 1, 0], base=3)
    h = play_script(rules, dealer=2, hands=TWO_WINNERS)
    assert [w.received for w in h.wins] == [6 + 6, 6 + 9]
    assert h.deltas == (12, 15, -27, 0)
    h = play_script(rules, dealer=1, hands=[None, "123m456m789m123p55p", None, None])
    pays = {p.payer: p.amount for p in h.payments}
    assert pays == {0: 3 + 9, 2: 3 + 9, 3: 3 + 6}


def test_quanqiuren_self_in_the_hand_loop():
    """RULES §2.2 in play: a self-drawn (or robbed-kong) 全求人 is scored pinghu and paid the
    pinghu self value; the house variant scores quanqiuren with values.quanqiuren[1]."""
    from mjsim.play.engine import PATTERNS
    from mjsim.play.engine import PROPERTIES

    qqr, bit = PATTERNS.index("quanqiuren"), 1 << PROPERTIES.index("quanqiuren")
    counts = {}
    for mode in ("pinghu", "quanqiuren"):
        rules = Rules.load("wanzai", quanqiuren_self=mode, **{"values.quanqiuren": [2, 3]})
        _, wins = game.simulate_chunk(rules, RANDOM, seed=6, start=0, count=6000)
        by_self = wins["win_kind"] != game.WIN_KINDS.index("discard")
        is_qqr = wins["pattern"] == qqr
        has_bit = (wins["props"] & bit) != 0
        counts[mode] = (is_qqr & ~by_self).sum(), (is_qqr & by_self).sum(), (has_bit & by_self).sum()
        if mode == "quanqiuren":
            assert (wins["points"][is_qqr & by_self] == 3).all()
    assert counts["pinghu"][0] > 0 and counts["pinghu"][1] == 0 and counts["pinghu"][2] == 0
    assert counts["quanqiuren"][1] > 0 and counts["quanqiuren"][2] > 0


def test_kong_values_are_rule_parameters():
    rules = FLAT.with_overrides(kong_values={"concealed": 5})
    h = play_script(rules, hands=["1111z123m456m789m5p", None, None, None], tail="3z")
    kong = h.events[0]
    assert kong_payments_after(h, kong) == [(1, 0, 5, "kong_concealed"), (2, 0, 5, "kong_concealed"),
                                            (3, 0, 5, "kong_concealed")]


def _added_kongs_of_an_older_tile(h):
    """Added kongs whose tile is not the one the seat just drew."""
    found, last_draw = 0, {}
    for e in h.events:
        if e.kind == "draw":
            last_draw[e.seat] = e.tile
        elif e.kind in ("pung", "chow", "discard"):
            last_draw[e.seat] = None
        elif e.kind == "kong" and e.kong == "added" and last_draw.get(e.seat) != e.tile:
            found += 1
    return found


def test_added_kong_on_draw_only():
    on, off = Rules.load("wanzai"), Rules.load("wanzai", added_kong_on_draw_only=False)
    late_on = sum(_added_kongs_of_an_older_tile(game.play(on, seed=12, hand_index=i, players=RANDOM)) for i in range(300))
    late_off = sum(_added_kongs_of_an_older_tile(game.play(off, seed=12, hand_index=i, players=RANDOM)) for i in range(300))
    assert late_on == 0      # 摸到即槓: only with the tile just drawn
    assert late_off > 0      # otherwise a pung may be completed with a tile held earlier


@pytest.mark.parametrize("rule", ["stay", "next", "last_drawer"])
def test_dealer_on_draw(rule):
    rules = Rules.load("wanzai", dealer_on_draw=rule)
    seen = 0
    for i in range(120):
        h = game.play(rules, seed=31, hand_index=i, players=RANDOM, dealer=i % 4)
        if h.end != "draw":
            continue
        seen += 1
        last = [e for e in h.events if e.kind == "exhausted"][0].seat
        want = {"stay": h.dealer, "next": (h.dealer + 1) % 4, "last_drawer": last}[rule]
        assert h.next_dealer == want
    assert seen > 20


# ------------------------------------------------------------------ replay text (mjsim replay)

def test_replay_shows_the_first_dealer_and_the_base_factor_of_kong_and_piao_amounts():
    from mjsim.play.replay import describe

    rules = Rules.load("wanzai", base=3, piao=[1, 2, 1, 0], fire=[0.5, 0.5, 0.5, 0.5], kong_pay_on_draw=False)
    explained = {"win": 0, "kong": 0, "refund": 0}
    for i in range(60):
        record = game.play(rules, seed=5, hand_index=i, players=RANDOM if i % 2 else GREEDY, session_hands=4)
        lines = describe(record, rules)
        first = lines[2]
        assert first.startswith("session's first dealer") and f"seat {record.first_dealer}," in first
        assert 'drawn from the session\'s seed (first_dealer = "random")' in first
        assert ("this hand" in first) == (i % 4 == 0)
        for line in lines:
            if " pays seat " in line and ("(win)" in line or "(kong_" in line):
                amount = int(line.split(" pays seat ")[1].split()[1])
                assert line.rstrip().endswith(f"= {amount}]"), line
                assert "× base 3" in line, line
                if "(win)" in line and "+ piao" in line:
                    assert ") × base 3" in line.split("+ piao")[1]
                explained["win" if "(win)" in line else "kong"] += 1
            if "(kong_refund" in line:
                explained["refund"] += 1
    assert min(explained.values()) > 0, explained
    fixed = Rules.load("wanzai", first_dealer=2)
    record = game.play(fixed, seed=5, hand_index=9, session_hands=4)
    assert describe(record, fixed)[2] == "session's first dealer (hand 8): seat 2, fixed (first_dealer = 2)"


def test_dealer_doubling_applies_to_the_kong_payments_the_dealer_makes():
    """RULES §2.5 打莊帶火: every payment made by the dealer is doubled, kong payments too:
    seat 1's concealed kong costs the dealer 4 and the others 2."""
    rules = FLAT.with_overrides(dealer_pays_double=True)
    h = play_script(rules, hands=[DEALER_DISCARDS_WHITE, "1111z123m456m789m", None, None], tail="3z")
    kong = next(e for e in h.events if e.kind == "kong")
    assert (kong.seat, kong.tile, kong.kong) == (1, "1z", "concealed")
    assert sorted(kong_payments_after(h, kong)) == [(0, 1, 4, "kong_concealed"), (2, 1, 2, "kong_concealed"),
                                                    (3, 1, 2, "kong_concealed")]


def test_a_concealed_kong_cannot_be_robbed():
    """RULES §2.1: only an added kong may be robbed. Seat 1 is ready on 1p/4p when the dealer
    declares a concealed kong of 4p: nobody wins on it, and the kong is paid."""
    h = play_script(hands=["4444p123s456s789s1z", "123m456m789m23p55s", None, None], tail="3z")
    kong = h.events[0]
    assert (kong.kind, kong.seat, kong.tile, kong.kong) == ("kong", 0, "4p", "concealed")
    assert kong_payments_after(h, kong) == [(1, 0, 2, "kong_concealed"), (2, 0, 2, "kong_concealed"),
                                            (3, 0, 2, "kong_concealed")]
    assert not any(w.kind == "rob_kong" for w in h.wins)
    assert not any(e.kind in ("win", "pass_win") and e.tile == "4p" and e.seat == 1
                   for e in h.events[:events_index(h, "discard")])


def events_index(h, kind):
    return next(i for i, e in enumerate(h.events) if e.kind == kind)


def test_a_pung_beats_the_next_players_chow():
    """RULES §1 / §2.1 priority: win > pung / exposed kong > chow. 下家 (seat 1) could chow the
    dealer's 7z into 中發白 and 對家 (seat 2) could pung it: seat 2 pungs, seat 1 gets nothing."""
    h = play_script(hands=[DEALER_DISCARDS_WHITE, "56z123s456s8s159p9m", "123p456p78s77z149m", None])
    assert (h.events[0].kind, h.events[0].tile) == ("discard", "7z")
    assert (h.events[1].kind, h.events[1].seat, h.events[1].tile, h.events[1].from_seat) == ("pung", 2, "7z", 0)
    assert not any(m.startswith("chow:567z") for m in h.melds[1])


def test_a_wind_chow_in_play():
    """RULES §2.1: any three different winds are a meld, and 下家 may chow one (holding 東西,
    chow 南). The dealer's least useful tile is its lone 南; seat 1 holds 東 and 西."""
    h = play_script(hands=["123m456m789m13p59s2z", "13z123s456s8s159p9m", None, None])
    assert (h.events[0].kind, h.events[0].tile) == ("discard", "2z")
    chow = h.events[1]
    assert (chow.kind, chow.seat, chow.tile, chow.from_seat) == ("chow", 1, "2z", 0)
    assert "chow:123z" in h.melds[1]


def test_pass_ron_lock_never_locks_a_self_draw():
    """RULES §2.1: 漏胡 locks wins on discards only. Seats that passed a discard win and have
    not discarded since still win by self-draw when they draw their wait."""
    rules = Rules.load("wanzai")
    players = (PassOnce(),) * 4
    locked_self_draws = 0
    for i in range(300):
        h = game.play(rules, seed=22, hand_index=i, players=players)
        locked = set()
        for e in h.events:
            if e.kind == "pass_win":
                locked.add(e.seat)
            elif e.kind == "discard":
                locked.discard(e.seat)
            elif e.kind == "win" and e.from_seat is None and e.seat in locked:
                locked_self_draws += 1
    assert locked_self_draws >= 5


def test_play_reads_its_switches_strictly():
    """log="no" was read as a yes; a numpy dice sum was refused where a numpy seed is not."""
    rules = Rules.load("wanzai")
    with pytest.raises(ValueError, match="log must be True or False, got 'no'"):
        game.play(rules, seed=1, log="no")
    assert game.play(rules, seed=1, dice=np.int64(7)) == game.play(rules, seed=1, dice=7)
    assert game.play(rules, seed=np.uint64(1), log=np.False_).events == ()
    with pytest.raises(ValueError, match="payments must be True or False, got 'no'"):
        game.simulate_chunk(rules, ("greedy",) * 4, seed=1, start=0, count=4, payments="no")


def test_replay_explains_each_share_a_robbed_player_pays():
    """RULES §2.5: the robbed player pays the three shares of a self-drawn score, each with
    its own payer's fire, piao and dealer factor; each line explains its own share (once
    every line showed the robbed player's formula, "= 6 (paid 3)")."""
    from mjsim.dataset.schema import WIN_KINDS
    from mjsim.play.replay import describe

    rules = Rules.load("wanzai", fire=[0.3, 0.2, 0.4, 0.1], piao=[1, 2, 1, 0], dealer_pays_double=True)
    _, wins = game.simulate_chunk(rules, ("ev",) * 4, 11, 0, 4800, 16)
    robbed = wins["hand_index"][wins["win_kind"] == WIN_KINDS.index("rob_kong")]
    assert len(robbed) >= 3
    amounts = set()
    for i in robbed[:3]:
        record = game.play(rules, seed=11, hand_index=int(i), players=("ev",) * 4, session_hands=16)
        win = next(w for w in record.wins if w.kind == "rob_kong")
        lines = [line for line in describe(record, rules) if f"pays seat {win.winner} " in line and "(win)" in line]
        assert len(lines) == 3
        for k, line in enumerate(lines, 1):
            amount = int(line.split(" pays seat ")[1].split()[1])
            assert f"[seat {(win.winner + k) % 4}'s share: " in line and line.endswith(f"= {amount}]"), line
            amounts.add(amount)
    assert len(amounts) > 1          # the shares differ, so a line explaining another's share would show
    # rob_kong_pays = "one": the robbed player pays its own share, explained as its own
    one = rules.with_overrides(rob_kong_pays="one")
    record = game.play(one, seed=11, hand_index=int(robbed[0]), players=("ev",) * 4, session_hands=16)
    win = next(w for w in record.wins if w.kind == "rob_kong")
    [line] = [line for line in describe(record, one) if f"pays seat {win.winner} " in line and "(win)" in line]
    amount = int(line.split(" pays seat ")[1].split()[1])
    assert "share:" not in line and line.endswith(f"= {amount}]"), line


"""Properties both rule sets' hand loops share."""
import numpy as np
import pytest

from mjsim.play import game
from mjsim.rulesets.rules import Rules
from mjsim.players import Builtin


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_same_seed_same_hand(rules_name):
    rules = Rules.load(rules_name)
    a = game.play(rules, seed=9, hand_index=77, players=("random",) * 4)
    b = game.play(rules, seed=9, hand_index=77, players=("random",) * 4)
    c = game.play(rules, seed=9, hand_index=78, players=("random",) * 4)
    assert a == b
    assert a.events != c.events


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_greedy_beats_random(rules_name):
    res, won = game.simulate_chunk(Rules.load(rules_name), ("greedy", "random", "greedy", "random"),
                                   seed=5, start=0, count=2000)
    wins = np.bincount(won["winner"], minlength=4)
    assert wins[0] + wins[2] > 3 * (wins[1] + wins[3])
    money = [res[f"delta_{s}"].sum() for s in range(4)]
    assert money[0] + money[2] > 0 > money[1] + money[3]


# ---------------------------------------------------------------- payment records (step: per-hand payments)

HEAVY = {
    # every payment-shaping parameter on, so each factor has to be in the recorded amounts
    "wanzai": dict(fire=[0.3, 0.2, 0.4, 0.1], fire_min_hands=2, piao=[1, 2, 1, 0],
                   dealer_pays_double=True, kong_pay_on_draw=False, base=3),
    "anhua": dict(birds=3, rob_kong_pays="all", base=2, instant_win_categories=["dan_wang", "si_wang"]),
}


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
@pytest.mark.parametrize("players", [("greedy",) * 4, ("random", "greedy", "random", "greedy")])
def test_payments_sum_to_the_deltas(rules_name, players):
    """An independent sum: every seat's received - paid over the payment rows of a hand is
    that hand's delta column."""
    rules = Rules.load(rules_name, **HEAVY[rules_name])
    hands, wins, pays = game.simulate_chunk(rules, players, seed=3, start=0, count=3000,
                                            session_hands=8, payments=True)
    assert {k: v.dtype for k, v in pays.items()} == {
        "hand_index": np.int64, "payer": np.int8, "receiver": np.int8, "amount": np.int64,
        "reason": np.int8, "pattern": np.int16}
    n = len(hands["hand_index"])
    net = np.zeros((n, 4), np.int64)
    row = pays["hand_index"]
    np.add.at(net, (row, pays["payer"].astype(np.intp)), -pays["amount"])
    np.add.at(net, (row, pays["receiver"].astype(np.intp)), pays["amount"])
    deltas = np.stack([hands[f"delta_{s}"] for s in range(4)], axis=1)
    assert deltas.dtype == np.int64
    np.testing.assert_array_equal(net, deltas)
    assert (pays["payer"] != pays["receiver"]).all()
    assert (pays["amount"] > 0).all()
    reasons = [game.PAY_REASONS[r] for r in pays["reason"]]
    is_win = np.isin(pays["reason"], [game.PAY_REASONS.index("win"), game.PAY_REASONS.index("instant")])
    assert (pays["pattern"][is_win] >= 0).all() and (pays["pattern"][~is_win] == -1).all()
    # every win is paid: the win payments to a winner sum to its `received`
    for hi, winner, received, pattern in zip(wins["hand_index"], wins["winner"], wins["received"], wins["pattern"]):
        mine = (row == hi) & (pays["receiver"] == winner) & is_win
        assert pays["amount"][mine].sum() == received
        assert set(pays["pattern"][mine]) == {pattern}
    if rules_name == "wanzai":
        assert {"win", "kong_added", "kong_exposed", "kong_concealed"} <= set(reasons)
        if "random" in players:   # greedy Wanzai hands are almost never drawn
            assert "kong_refund" in reasons
        # a refund is each kong payment of a drawn hand reversed
        for hi in np.flatnonzero(hands["end"] == 0)[:300]:
            mine = row == hi
            kong = [(p, r, a) for p, r, a, why in zip(pays["payer"][mine], pays["receiver"][mine],
                                                         pays["amount"][mine], pays["reason"][mine])
                    if game.PAY_REASONS[why].startswith("kong_") and game.PAY_REASONS[why] != "kong_refund"]
            back = [(r, p, a) for p, r, a, why in zip(pays["payer"][mine], pays["receiver"][mine],
                                                         pays["amount"][mine], pays["reason"][mine])
                    if game.PAY_REASONS[why] == "kong_refund"]
            assert back == kong
    else:
        assert "instant" in reasons and "win" in reasons


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_play_records_the_same_payments_claims_and_turns(rules_name):
    """play() and simulate_chunk() agree on payments, claims and turns, and the events of a
    played hand re-derive the claims (pung/chow/exposed kong events) and each win's turn
    (the winner's discard events before its win event, plus 1)."""
    rules = Rules.load(rules_name, **HEAVY[rules_name])
    players = ("random", "greedy", "greedy", "random")
    hands, wins, pays = game.simulate_chunk(rules, players, seed=11, start=0, count=200,
                                            session_hands=4, payments=True)
    n_claims = n_turns = 0
    for i in range(200):
        h = game.play(rules, seed=11, hand_index=i, players=players, session_hands=4)
        mine = pays["hand_index"] == i
        assert [(p.payer, p.receiver, p.amount, p.reason) for p in h.payments] == [
            (int(a), int(b), int(c), game.PAY_REASONS[d]) for a, b, c, d in
            zip(pays["payer"][mine], pays["receiver"][mine], pays["amount"][mine], pays["reason"][mine])]
        claims = [0, 0, 0, 0]
        for e in h.events:
            if e.kind in ("pung", "chow") or (e.kind == "kong" and e.kong == "exposed"):
                claims[e.seat] += 1
        assert tuple(claims) == h.claims == tuple(hands[f"claims_{s}"][i] for s in range(4))
        n_claims += sum(claims)
        for w, turn in zip(h.wins, wins["turn"][wins["hand_index"] == i]):
            discards = 0
            for e in h.events:
                if e.kind == "win" and e.seat == w.winner:
                    break
                discards += e.kind == "discard" and e.seat == w.winner
            assert w.turn == turn == discards + 1
            n_turns += 1
    assert n_claims > 50 and n_turns > 50
    assert hands["claims_0"].dtype == np.int16 and wins["turn"].dtype == np.int16


def test_default_simulate_chunk_still_returns_two_tables():
    out = game.simulate_chunk(Rules.load("wanzai"), ("random",) * 4, seed=1, start=0, count=10)
    assert len(out) == 2


def test_play_reuses_one_built_in_game_per_rules_and_players():
    """game.play caches the native game of built-in players (issue 8 item 5); another rules
    object or other players get their own, so a cached game never plays the wrong rules."""
    rules = Rules.load("wanzai")
    doubled = rules.with_overrides(base=2)
    players = ("greedy",) * 4
    plain = [game.play(rules, 3, i, players, log=False) for i in range(6)]
    twice = [game.play(doubled, 3, i, players, log=False) for i in range(6)]
    assert [h.deltas for h in twice] == [tuple(2 * d for d in h.deltas) for h in plain]
    assert any(any(h.deltas) for h in plain)
    assert game._native(rules, players) is game._native(rules, list(players))
    assert game._native(rules, players) is not game._native(doubled, players)
    assert game._native(rules, players) is not game._native(rules, ("random",) * 4)
    python_seat = (Builtin("greedy"), "greedy", "greedy", "greedy")
    assert game._native(rules, python_seat) is not game._native(rules, python_seat)

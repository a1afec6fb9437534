"""The native core's speed work must not change a single decision (issue 8).

Each digest is the sha256 of every array of the hands, wins and payments tables of 1,500
hands (seed 0 or 7, sessions of 16), from `mjsim.game.chunk_digest`.  A change that makes
the core faster keeps all of them.  A change to what a player decides (a players-issue
commit of its own) changes that player's digests on purpose: regenerate them with
`python bench/decisions_digest.py --hands 1500` and say in the commit which ones moved and why.
`bench/decisions_digest.py --hands 100000` is the full-size before/after check.

Issue 19 changed ev's Anhua play (its style: value 0.7, mix 0.5): the Anhua ev and mixed
digests were re-recorded for the new ev, and ev_v1 (ev as it was) reproduces the old ones,
recorded here under ev_v1 and mixed_v1.  Wanzai ev's style passed 1 (a kind an opponent
let pass since its last discard is safe against it), keep 0.7 (a folding discard is worth
0.7 x its EV) and stretch 1 moved the Wanzai ev and mixed rows (default and variant
rules); ev_v1 and mixed_v1 keep theirs.  Wanzai ev's style hold 1.1 (a win on a discard is
passed when the ready hand's EV is more than 1.1 x the win) moved the same rows again, and
so did its style kongs 0.25 (the kongs a hand may still make count in its EV).  RULES §1
says default policies always take a legal win, so ev's style hold went back to 0 and ev
declares every Anhua special start it may (the weighing is the option start, on in ev_v1's
style): the Wanzai ev and mixed rows and the Anhua mixed row moved; ev_v1 and mixed_v1 kept
theirs.
"""
import pytest

from mjsim.play.game import chunk_digest
from mjsim.rulesets.rules import Rules

MIXED = ("ev", "greedy", "greedy_v1", "random")
MIXED_V1 = ("ev_v1", "greedy", "greedy_v1", "random")

DEFAULT_RULES = {
    ("wanzai", "random"): "59be1e57d242e8d7950d528f143624d6635d0200d86687de9d1114b080c0d351",
    ("wanzai", "greedy"): "69595f41223d3cc7c9e9696566238b5bb0652324083a8b6f7cdefe706afc9a4c",
    ("wanzai", "greedy_v1"): "8950ef2bac59d8a69589a0a8240e4fb621fab1be27dc9a7e22c5e73112f8dd88",
    ("wanzai", "ev"): "0c8eb85ade4e13a564dd6f9dc73519437d99c1546590744f6b84264e7933062a",
    ("wanzai", "mixed"): "df5772aa79a1d91e28c0d09c8ed7bb1716e8e1ec9ec05c3cae3177fea3c6bb85",
    ("wanzai", "ev_v1"): "977d984e63dde5c3c96f5ff66f7008ccee2f1ffe16ab60a3b99634cdbdbfeab6",
    ("wanzai", "mixed_v1"): "f287d094ac272d7bfdc0bc089880606a188fc319c5c7c33687e9cd949ffc3a00",
    ("anhua", "random"): "4504e059918a17a5af208e4d998d9939c217b9a79993bced4ae011e75d1ad1a1",
    ("anhua", "greedy"): "248bc2317db0f03c5ca39138a4da2be99053fb3f9be843c0cb943106d26867d7",
    ("anhua", "greedy_v1"): "248bc2317db0f03c5ca39138a4da2be99053fb3f9be843c0cb943106d26867d7",
    ("anhua", "ev"): "c436d3f96c8cf59a732bb081baee447d3eb917f28ecfc40e5d1642f63a836b1b",
    ("anhua", "mixed"): "e35b5af024bae062c70332acf163c6836b01136e22b85b574c7077bb2503ac64",
    ("anhua", "ev_v1"): "43cd02b8aedbc2fc5c9ce12d9b60662718a04455360c35c156aa4fbcf63ca35f",
    ("anhua", "mixed_v1"): "b0b38f634676059168e3c59074dac0c66a05216219f381fce1675907788c78b8",
}

# non-default parameters reach the branches the defaults never take
VARIANT_OVERRIDES = {
    "wanzai": dict(honor_chow=False, multiple_ron=False, added_kong_on_draw_only=False,
                   pass_ron_lock="none", wall_model="flat", fire=[0.5, 0, 0.5, 0], piao=[1, 0, 2, 0]),
    "anhua": dict(hard_if_natural=False, multiple_ron=True, discard_win_wilds="face_value",
                  added_kong_on_draw_only=False, buzhang_tiles=2, birds=2, kong_min_wall=0),
}
VARIANT_RULES = {
    ("wanzai", "mixed"): "d7956721a1b6e61b505b82819a2677049331e243753039e96d6a577d14d21a83",
    ("wanzai", "greedy"): "fcddf2c71e6151f76b374584f18e3342d5af5055637d850b38994b88d99eceaf",
    ("anhua", "mixed"): "0b64506b368b703e46385baaf7e87818008e15bdb27ce644ae8d33cc29b4270c",
    ("anhua", "mixed_v1"): "fa4a609e8f214f4433be9dc5bf2b2cbbae562cdcd2c77130c390379216a1a173",
    ("anhua", "greedy"): "e8f7a0c6865ccdf3e597de19483feab871628be8678b246f4858950a8fd15656",
}


def _players(name):
    return {"mixed": MIXED, "mixed_v1": MIXED_V1}.get(name, (name,) * 4)


@pytest.mark.parametrize("game,players", sorted(DEFAULT_RULES))
def test_default_rules_play_every_hand_as_before(game, players):
    assert chunk_digest(Rules.load(game), _players(players), 0, 0, 1500, 16) == DEFAULT_RULES[game, players]


@pytest.mark.parametrize("game,players", sorted(VARIANT_RULES))
def test_variant_rules_play_every_hand_as_before(game, players):
    rules = Rules.load(game, **VARIANT_OVERRIDES[game])
    assert chunk_digest(rules, _players(players), 7, 0, 1500, 16) == VARIANT_RULES[game, players]


def test_digest_sees_a_one_hand_difference():
    rules = Rules.load("wanzai")
    assert chunk_digest(rules, _players("greedy"), 0, 0, 1500, 16) != chunk_digest(rules, _players("greedy"), 0, 0, 1501, 16)
    assert chunk_digest(rules, _players("greedy"), 0, 0, 16, 16) != chunk_digest(rules, _players("greedy"), 1, 0, 16, 16)

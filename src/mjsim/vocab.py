"""Every code <-> name table of the data and the native core, defined once.

The native enums (core/_state.pxd) are indexed by position in these tuples;
tests/test_vocab.py ties the two together.
"""
from __future__ import annotations

#: built-in players, indexed by player code (PLAYER_* in core/_state.pxd)
PLAYERS = ("random", "greedy", "greedy_v1", "ev", "search")
#: event log types (EV_*)
EVENT_NAMES = ("draw", "discard", "pung", "chow", "kong", "robbed", "win", "payment",
               "pass_win", "exhausted", "indicator", "buzhang", "locked", "bird", "instant")
#: kong kinds (KONG_*), also the keys of Wanzai's kong_values
KONG_NAMES = ("added", "exposed", "concealed")
#: meld kinds (MELD_*)
MELD_NAMES = ("chow", "pung", "kong", "added_kong", "concealed_kong")
#: how a hand ended (END_*)
END_NAMES = ("draw", "self_draw", "discard", "rob_kong", "instant")
#: how a single win was made (WIN_*)
WIN_KIND_NAMES = ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant")
#: why a payment was made (PAY_*)
PAY_REASONS = ("win", "kong_added", "kong_exposed", "kong_concealed", "kong_refund", "instant")
#: a turn's action (ACT_*) and a claim (CALL_*)
TURN_NAMES = ("discard", "concealed_kong", "added_kong")
CALL_NAMES = ("pung", "kong", "chow")
#: Anhua wild categories (index 0: none) and win contexts (index 0: none)
CATEGORY_NAMES = (None, "dan_wang", "san_wang", "si_wang", "liu_wang", "qi_wang")
CONTEXT_NAMES = (None, "gangshanghua", "qiangganghu", "gangshangpao")
#: rule sets, indexed by the native game code (GAME_* in core/_eval.pxd)
GAMES = ("wanzai", "anhua")
#: rule values, each indexed by its native code
WALL_MODELS = ("table", "flat")
PASS_RON_LOCKS = ("none", "until_own_discard", "same_kind_until_own_discard")
DEALER_ON_DRAW = ("stay", "next", "last_drawer")
DISCARD_WIN_WILDS = ("none", "dan_wang_face_value", "face_value")

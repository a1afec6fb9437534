"""Every code <-> name table of the data and the native core, and the Chinese names of the
ids the data uses (`label("qixiaodui")` -> "qixiaodui 七小對"), each defined once.

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
#: hand patterns, indexed by the native pattern code (P_* in core/_eval.pxd): Wanzai's 15,
#: then Anhua's 硬莊 (its wild categories and contexts are properties)
PATTERNS = (
    "pinghu", "shisanlan", "qixing_shisanlan", "quanqiuren", "daqidui", "qixiaodui",
    "haohua_qixiaodui", "shuang_haohua_qixiaodui", "san_haohua_qixiaodui",
    "qingyise_pinghu", "qingyise_daqidui", "qingyise_qixiaodui", "qingyise_haohua_qixiaodui",
    "qingyise_shuang_haohua_qixiaodui", "qingyise_san_haohua_qixiaodui", "yingzhuang",
)
#: Wanzai's patterns are the first N_WANZAI_PATTERNS (N_WANZAI_VALUES in core/_eval.pxd)
N_WANZAI_PATTERNS = 15
#: properties of a win, indexed by bit (PR_* in core/_eval.pxd)
PROPERTIES = PATTERNS[:9] + ("qingyise", "xiaoqidui") + CATEGORY_NAMES[1:] + CONTEXT_NAMES[1:]
#: rule sets, indexed by the native game code (GAME_* in core/_eval.pxd)
GAMES = ("wanzai", "anhua")
#: rule values, each indexed by its native code
WALL_MODELS = ("table", "flat")
PASS_RON_LOCKS = ("none", "until_own_discard", "same_kind_until_own_discard")
DEALER_ON_DRAW = ("stay", "next", "last_drawer")
DISCARD_WIN_WILDS = ("none", "dan_wang_face_value", "face_value")

#: Chinese names of the ids the data uses (patterns, properties, wild categories, win kinds)
CHINESE = {
    # Wanzai patterns (RULES §2.2) and properties
    "pinghu": "平胡", "shisanlan": "十三爛", "qixing_shisanlan": "七星十三爛", "quanqiuren": "全求人",
    "daqidui": "大七對", "qixiaodui": "七小對", "haohua_qixiaodui": "豪華七小對",
    "shuang_haohua_qixiaodui": "雙豪華七小對", "san_haohua_qixiaodui": "三豪華七小對",
    "qingyise_pinghu": "清一色平胡", "qingyise_daqidui": "清一色大七對", "qingyise_qixiaodui": "清一色七小對",
    "qingyise_haohua_qixiaodui": "清一色豪華七小對", "qingyise_shuang_haohua_qixiaodui": "清一色雙豪華七小對",
    "qingyise_san_haohua_qixiaodui": "清一色三豪華七小對", "qingyise": "清一色",
    # Anhua (RULES §3)
    "yingzhuang": "硬莊", "xiaoqidui": "小七對", "dan_wang": "單王", "san_wang": "三王", "si_wang": "四王",
    "liu_wang": "六王", "qi_wang": "七王", "gangshanghua": "槓上花", "qiangganghu": "搶槓胡",
    "gangshangpao": "槓上炮",
    # win kinds
    "self_draw": "自摸", "discard": "點炮", "rob_kong": "搶槓", "instant": "特殊平胡",
    # games and money
    "wanzai": "萬載", "anhua": "安化七王", "fire": "上火", "piao": "飄", "birds": "抓鳥",
    "kong_added": "補槓", "kong_exposed": "明槓", "kong_concealed": "暗槓", "kong_refund": "槓錢退還",
    "win": "胡",
}


def chinese(name: str) -> str:
    """The Chinese name of an id, or ''."""
    return CHINESE.get(str(name), "")


def label(name: str) -> str:
    """'qixiaodui' -> 'qixiaodui 七小對'; an id without a Chinese name as it is."""
    zh = chinese(name)
    return f"{name} {zh}" if zh else str(name)

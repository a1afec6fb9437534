"""Hand-made checks of the pure-Python reference evaluator (tests/reference.py).

Every expected value below was worked out by hand from RULES.md (§2.2-2.3 Wanzai,
§3.1-3.3 Anhua), not printed by the code.  Hands are written in the usual notation:
``123m`` = 1m 2m 3m, ``1z..7z`` = 東 南 西 北 中 發 白.
"""
from __future__ import annotations

import os
import random
import sys
from itertools import combinations_with_replacement

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402

V = R.WANZAI_DEFAULT_VALUES
NO_WIN = (False, None, frozenset(), 0)


def k(tile: str) -> int:
    """'5s' -> kind 22."""
    (kind,) = R.parse_kinds(tile)
    return kind


def meld(kind: str, tiles: str):
    return (kind, R.parse_kinds(tiles))


def wz(hand, win, *, melds=(), self_draw=False, context=None, values=V):
    return R.wanzai_evaluate(R.parse_hand(hand), list(melds), k(win), self_draw, context, values)


def params(**changes):
    p = {**R.ANHUA_DEFAULT_PARAMS, "multipliers": dict(R.ANHUA_DEFAULT_PARAMS["multipliers"])}
    p.update(changes)
    return p


P = params()


def ah(hand, win, *, melds=(), self_draw=False, indicator="5s", context=None, p=P):
    return R.anhua_evaluate(R.parse_hand(hand), list(melds), k(win), self_draw,
                            k(indicator), context, p)


def fs(*names):
    return frozenset(names)


# =======================================================================================
# Wanzai: single patterns
# =======================================================================================

def test_wanzai_pinghu_both_columns():
    hand = "123m 456p 789s 111z 55m"
    assert wz(hand, "5m") == (True, "pinghu", fs("pinghu"), 2)
    assert wz(hand, "5m", self_draw=True) == (True, "pinghu", fs("pinghu"), 1)
    # robbing a kong scores as a self-draw
    assert wz(hand, "5m", context="qiangganghu") == (True, "pinghu", fs("pinghu"), 1)


def test_wanzai_not_a_win():
    assert wz("123m 456m 789m 12359p", "5p") == NO_WIN
    # 東南中 is not a meld (winds and dragons do not mix)
    assert wz("125z 123m 456m 789m 55p", "5p") == NO_WIN
    # 北中發 is not a meld either
    assert wz("456z 123m 456m 789m 55p", "5p") == NO_WIN
    # 東東南: a wind run needs three *different* winds
    assert wz("112z 123m 456m 789m 55p", "5p") == NO_WIN


def test_wanzai_honor_runs():
    # 東南西 + 北北北 + 中發白 + 123m + 55p
    assert wz("123m 55p 123444567z", "5p") == (True, "pinghu", fs("pinghu"), 2)
    # 東東東 triplet + 南西北 run + 中中中 + 123m + 55p
    assert wz("111234555z 123m 55p", "5p") == (True, "pinghu", fs("pinghu"), 2)
    # 東南西 + 東南北 (two wind runs sharing kinds) + 中發白 + 123p + 99s
    assert wz("112234567z 123p 99s", "9s") == (True, "pinghu", fs("pinghu"), 2)


def test_wanzai_honor_triplets_daqidui_vs_honor_runs():
    # 東東東南南南西西西 is three triplets (大七對) and also three wind runs (平胡)
    hand = "111222333555z 55m"
    assert wz(hand, "5m") == (True, "daqidui", fs("pinghu", "daqidui"), 3)
    assert wz(hand, "5m", self_draw=True) == (True, "daqidui", fs("pinghu", "daqidui"), 3)


def test_wanzai_shisanlan():
    assert wz("147m 258p 369s 12345z", "1m") == (True, "shisanlan", fs("shisanlan"), 2)
    assert wz("147m 258p 369s 12345z", "1m", self_draw=True) == (
        True, "shisanlan", fs("shisanlan"), 2)
    # 1-4 is fine (gap 3), so is 1-4-8
    assert wz("148m 258p 369s 12345z", "8m") == (True, "shisanlan", fs("shisanlan"), 2)
    # 1-3 is not (gap 2)
    assert wz("137m 258p 369s 12345z", "3m") == NO_WIN
    # a repeated honor is not allowed
    assert wz("147m 258p 369s 11234z", "1z") == NO_WIN


def test_wanzai_qixing_shisanlan():
    hand = "147m 25p 39s 1234567z"
    expected = (True, "qixing_shisanlan", fs("shisanlan", "qixing_shisanlan"), 4)
    assert wz(hand, "7z") == expected
    assert wz(hand, "7z", self_draw=True) == expected


def test_wanzai_qixiaodui_family():
    assert wz("1133m 5577p 99s 1155z", "9s") == (True, "qixiaodui", fs("qixiaodui"), 5)
    assert wz("111133m 5577p 99s 11z", "9s") == (
        True, "haohua_qixiaodui", fs("haohua_qixiaodui"), 10)
    # two four-of-a-kinds = 雙豪華
    assert wz("11113333m 5577p 11z", "1z") == (
        True, "shuang_haohua_qixiaodui", fs("shuang_haohua_qixiaodui"), 20)
    # three: also a standard hand (111 222 333 123 + 55p), 40 beats 2
    assert wz("111122223333m 55p", "5p") == (
        True, "san_haohua_qixiaodui", fs("pinghu", "san_haohua_qixiaodui"), 40)
    assert wz("111122223333m 55p", "5p", self_draw=True)[3] == 40


def test_wanzai_qingyise_rows():
    assert wz("12345678923455m", "5m") == (
        True, "qingyise_pinghu", fs("pinghu", "qingyise"), 5)
    assert wz("12345678923455m", "5m", self_draw=True)[3] == 5
    assert wz("11133355577799m", "9m") == (
        True, "qingyise_daqidui", fs("pinghu", "daqidui", "qingyise"), 10)
    assert wz("11224455778899m", "9m") == (
        True, "qingyise_qixiaodui", fs("qixiaodui", "qingyise"), 10)
    assert wz("11112244557799m", "9m") == (
        True, "qingyise_haohua_qixiaodui", fs("haohua_qixiaodui", "qingyise"), 20)
    assert wz("11112222557799m", "9m") == (
        True, "qingyise_shuang_haohua_qixiaodui", fs("shuang_haohua_qixiaodui", "qingyise"), 40)
    assert wz("11112222333355m", "5m") == (
        True, "qingyise_san_haohua_qixiaodui",
        fs("pinghu", "san_haohua_qixiaodui", "qingyise"), 40)


def test_wanzai_qingyise_counts_declared_melds():
    pure = [meld("pung", "555p")]
    assert wz("123456789p 22p", "2p", melds=pure) == (
        True, "qingyise_pinghu", fs("pinghu", "qingyise"), 5)
    # an honor pung breaks 清一色
    assert wz("123456789p 22p", "2p", melds=[meld("pung", "111z")]) == (
        True, "pinghu", fs("pinghu"), 2)
    # a meld of another suit breaks it too
    assert wz("123456789p 22p", "2p", melds=[meld("chow", "123s")]) == (
        True, "pinghu", fs("pinghu"), 2)


def test_wanzai_quanqiuren():
    melds = [meld("chow", "123m"), meld("pung", "111z"), meld("kong", "5555p"),
             meld("added_kong", "9999s")]
    props = fs("pinghu", "quanqiuren")
    # on a discard: 全求人 2 ties 平胡 2; 全求人 is further down the table
    assert wz("77p", "7p", melds=melds) == (True, "quanqiuren", props, 2)
    # self-draw: RULES §2.2 makes it a 平胡 self-draw (如果自摸自能算平胡自摸): pattern and
    # value, and quanqiuren is no property then; so does a robbed kong (scored as a self-draw)
    assert wz("77p", "7p", melds=melds, self_draw=True) == (True, "pinghu", fs("pinghu"), 1)
    assert wz("77p", "7p", melds=melds, context="qiangganghu") == (True, "pinghu", fs("pinghu"), 1)
    # the house variant keeps it, with values["quanqiuren"][1]
    high = dict(R.WANZAI_DEFAULT_VALUES, quanqiuren=(2, 3))
    pair = R.parse_hand("77p")
    assert R.wanzai_evaluate(pair, melds, k("7p"), True, None, high, quanqiuren_self="quanqiuren") == (
        True, "quanqiuren", props, 3)
    assert R.wanzai_evaluate(pair, melds, k("7p"), True, None, high) == (True, "pinghu", fs("pinghu"), 1)
    # a concealed kong breaks 全求人
    broken = melds[:3] + [meld("concealed_kong", "9999s")]
    assert wz("77p", "7p", melds=broken) == (True, "pinghu", fs("pinghu"), 2)
    # three declared melds: not 全求人
    assert wz("789s 77p", "7p", melds=melds[:3]) == (True, "pinghu", fs("pinghu"), 2)
    # all pungs/kongs: also 大七對 (3 beats 2)
    pungs = [meld("pung", "222m"), meld("pung", "555p"), meld("pung", "111z"),
             meld("kong", "9999s")]
    assert wz("77p", "7p", melds=pungs) == (
        True, "daqidui", fs("pinghu", "daqidui", "quanqiuren"), 3)
    # 清一色全求人 scores the qingyise_pinghu row
    pure = [meld("chow", "123m"), meld("pung", "444m"), meld("kong", "6666m"),
            meld("pung", "888m")]
    assert wz("99m", "9m", melds=pure) == (
        True, "qingyise_pinghu", fs("pinghu", "quanqiuren", "qingyise"), 5)
    # a concealed part that is not a pair is no win
    assert wz("79p", "7p", melds=melds) == NO_WIN


def test_wanzai_declared_chow_blocks_daqidui():
    # concealed triplets only, but a declared chow: not 大七對
    assert wz("111222333z 55m", "5m", melds=[meld("chow", "789s")]) == (
        True, "pinghu", fs("pinghu"), 2)
    # declared pung instead: 大七對
    assert wz("111222333z 55m", "5m", melds=[meld("pung", "999s")]) == (
        True, "daqidui", fs("pinghu", "daqidui"), 3)


def test_wanzai_tie_rule():
    hand = "111222333555z 55m"  # pinghu + daqidui
    eq = {**V, "daqidui": (2, 1)}
    assert wz(hand, "5m", values=eq) == (True, "daqidui", fs("pinghu", "daqidui"), 2)
    assert wz(hand, "5m", values=eq, self_draw=True) == (
        True, "daqidui", fs("pinghu", "daqidui"), 1)
    high = {**V, "pinghu": (4, 1)}
    assert wz(hand, "5m", values=high) == (True, "pinghu", fs("pinghu", "daqidui"), 4)
    assert wz(hand, "5m", values=high, self_draw=True) == (
        True, "daqidui", fs("pinghu", "daqidui"), 3)
    # ties are decided on the ORIGINAL id after the 清一色 mapping
    qeq = {**V, "qingyise_daqidui": (5, 5)}
    assert wz("11133355577799m", "9m", values=qeq) == (
        True, "qingyise_daqidui", fs("pinghu", "daqidui", "qingyise"), 5)
    qhigh = {**V, "qingyise_pinghu": (11, 11)}
    assert wz("11133355577799m", "9m", values=qhigh) == (
        True, "qingyise_pinghu", fs("pinghu", "daqidui", "qingyise"), 11)


def test_wanzai_values_are_parameters():
    vals = {**V, "shisanlan": (7, 3)}
    assert wz("147m 258p 369s 12345z", "1m", values=vals)[3] == 7
    assert wz("147m 258p 369s 12345z", "1m", values=vals, self_draw=True)[3] == 3


# =======================================================================================
# Wanzai shanten / waits
# =======================================================================================

def test_wanzai_shanten_and_waits():
    c = R.parse_hand
    # single-tile pair wait
    assert R.wanzai_shanten(c("123m 456m 789p 111z 5s"), []) == 0
    assert R.wanzai_waits(c("123m 456m 789p 111z 5s"), []) == [k("5s")]
    # nine gates waits on every m tile
    assert R.wanzai_shanten(c("1112345678999m"), []) == 0
    assert R.wanzai_waits(c("1112345678999m"), []) == list(range(9))
    # two-sided wait
    assert R.wanzai_waits(c("123m 456m 789m 23p 55s"), []) == [k("1p"), k("4p")]
    # 1111m234m: 1m would complete it but all four are in hand -> only 4m
    assert R.wanzai_shanten(c("1111m 234m 567p 789s"), []) == 0
    assert R.wanzai_waits(c("1111m 234m 567p 789s"), []) == [k("4m")]
    # 7 pairs, single wait
    assert R.wanzai_shanten(c("1133m 5577p 99s 11z 5z"), []) == 0
    assert R.wanzai_waits(c("1133m 5577p 99s 11z 5z"), []) == [k("5z")]
    # 1-shanten: 123m 456m 789p 東東 + two isolated tiles 2s 7s
    assert R.wanzai_shanten(c("123m 456m 789p 11z 2s 7s"), []) == 1
    # complete hands
    assert R.wanzai_shanten(c("123m 456p 789s 111z 55m"), []) == -1
    assert R.wanzai_shanten(c("147m 258p 369s 12345z"), []) == -1
    # with declared melds: concealed part 77p + 5p -> 0 (pair wait)
    melds = [meld("chow", "123m"), meld("pung", "111z"), meld("kong", "5555p")]
    assert R.wanzai_shanten(c("789s 7p"), melds) == 0
    assert R.wanzai_waits(c("789s 7p"), melds) == [k("7p")]


def test_wanzai_shisanlan_shanten_and_waits():
    c = R.parse_hand
    # 13-orphans-like: the three suits are full (147/258/369), 3 dragons missing
    assert R.wanzai_shanten(c("147m 258p 369s 1234z"), []) == 0
    assert R.wanzai_waits(c("147m 258p 369s 1234z"), []) == [31, 32, 33]
    # all 7 honors, two ranks per suit: the suited ranks keeping gaps >= 3
    assert R.wanzai_shanten(c("14m 25p 39s 1234567z"), []) == 0
    assert R.wanzai_waits(c("14m 25p 39s 1234567z"), []) == [6, 7, 8, 16, 17, 23]
    # 159 in each suit is valid too (gaps 4); missing 南 北 發
    assert R.wanzai_waits(c("159m 159p 159s 1357z"), []) == [28, 30, 32]
    # 1m 2m are too close: the largest valid subset has 12 tiles -> 14 - 12 - 1 = 1
    assert R.wanzai_shanten(c("12m 258p 369s 12345z"), []) == 1


# =======================================================================================
# Anhua
# =======================================================================================

def test_anhua_wild_kinds():
    assert R.anhua_wild_kinds(k("5s")) == (k("5s"), k("6s"))
    assert R.anhua_wild_kinds(k("9p")) == (k("9p"), k("1p"))  # 9 wraps to 1


@pytest.mark.parametrize("a,b,cat", [
    (0, 0, None),
    # document examples 1/2/12/11/22/112/122/1122 (1 = type A, 2 = type B)
    (1, 0, "dan_wang"), (0, 1, "dan_wang"), (1, 1, "dan_wang"), (2, 0, "dan_wang"),
    (0, 2, "dan_wang"), (2, 1, "dan_wang"), (1, 2, "dan_wang"), (2, 2, "dan_wang"),
    # 111 / 222 / 1112 / ...
    (3, 0, "san_wang"), (0, 3, "san_wang"), (3, 1, "san_wang"), (1, 3, "san_wang"),
    (3, 2, "san_wang"), (2, 3, "san_wang"), (3, 3, "san_wang"),
    # 2222 / 12222, 112222, 1112222
    (0, 4, "si_wang"), (1, 4, "si_wang"), (2, 4, "liu_wang"), (3, 4, "qi_wang"),
])
def test_anhua_category(a, b, cat):
    assert R.anhua_category(a, b) == cat


def test_anhua_rules_example_16():
    # 硬莊 清一色 小七對 = 1 x 4 x 2 x 2 = 16, no wild in hand (indicator 5s)
    hand = "11223344667799m"
    assert ah(hand, "1m", self_draw=True) == (True, "yingzhuang", fs("qingyise", "xiaoqidui"), 16)
    assert ah(hand, "1m") == (True, "yingzhuang", fs("qingyise", "xiaoqidui"), 16)


def test_anhua_dan_wang_soft_only():
    # 1s 3s + wild 5s standing for 2s; at face value 1s 3s 5s is no meld
    hand = "123m 456m 789p 22p 13s 5s"
    assert ah(hand, "1s", self_draw=True) == (True, "pinghu", fs("dan_wang"), 2)
    # plain discard: 單王 needs the hand complete at face value
    assert ah(hand, "1s") == NO_WIN
    # robbing a kong / 槓上炮: 單王 may substitute; x2 special
    assert ah(hand, "1s", context="qiangganghu") == (
        True, "pinghu", fs("dan_wang", "qiangganghu"), 4)
    assert ah(hand, "1s", context="gangshangpao") == (
        True, "pinghu", fs("dan_wang", "gangshangpao"), 4)
    assert ah(hand, "1s", self_draw=True, context="gangshanghua") == (
        True, "pinghu", fs("dan_wang", "gangshanghua"), 4)


def test_anhua_dan_wang_at_face_value():
    hand = "123m 456m 789p 22p 345s"  # the 5s (type A wild) sits in 345s at face value
    for hin in (True, False):
        p = params(hard_if_natural=hin)
        assert ah(hand, "3s", p=p) == (True, "yingzhuang", fs("dan_wang"), 4)
    assert ah(hand, "3s", self_draw=True, p=params(hard_if_natural=True)) == (
        True, "yingzhuang", fs("dan_wang"), 4)
    # RULES §3.2: with hard_if_natural = false a hand complete at face value is 硬莊, full stop
    assert ah(hand, "3s", self_draw=True, p=params(hard_if_natural=False)) == (
        True, "yingzhuang", fs("dan_wang"), 4)
    # robbing a kong: the same either way
    assert ah(hand, "3s", context="qiangganghu", p=params(hard_if_natural=True)) == (
        True, "yingzhuang", fs("dan_wang", "qiangganghu"), 8)
    assert ah(hand, "3s", context="qiangganghu", p=params(hard_if_natural=False)) == (
        True, "yingzhuang", fs("dan_wang", "qiangganghu"), 8)


def test_anhua_wild_won_from_discard_is_natural():
    # the only wild is the discarded 5s -> no wild in hand, face value 345s
    assert ah("123m 456m 789p 22p 345s", "5s") == (True, "yingzhuang", fs(), 4)
    # the same tile at face value does not complete 13s
    assert ah("123m 456m 789p 22p 13s 5s", "5s") == NO_WIN
    # self-drawn it is a wild
    assert ah("123m 456m 789p 22p 13s 5s", "5s", self_draw=True) == (
        True, "pinghu", fs("dan_wang"), 2)


def test_anhua_san_wang():
    # three type-A wilds: 79p+W = 789p, 1s+2W = a meld
    hand = "123m 456m 22p 79p 1s 555s"
    assert ah(hand, "1s", self_draw=True) == (True, "pinghu", fs("san_wang"), 4)
    assert ah(hand, "1s") == NO_WIN                                # 三王 refused on a discard
    assert ah(hand, "1s", context="qiangganghu") == NO_WIN         # and on a robbed kong
    assert ah(hand, "1s", context="gangshangpao") == NO_WIN
    # three type-B wilds
    assert ah("123m 456m 22p 79p 1s 666s", "1s", self_draw=True) == (
        True, "pinghu", fs("san_wang"), 4)
    # complete at face value (555s triplet) but still refused on a plain discard
    face = "123m 456m 789p 22p 555s"
    assert ah(face, "1m") == NO_WIN
    # self-draw: hard 4 ties soft 1x4 -> hard preferred
    assert ah(face, "1m", self_draw=True) == (True, "yingzhuang", fs("san_wang"), 4)
    assert ah(face, "1m", self_draw=True, p=params(hard_if_natural=False)) == (
        True, "yingzhuang", fs("san_wang"), 4)
    # discard_win_wilds = "face_value" lets it win on the discard, as 硬莊
    assert ah(face, "1m", p=params(discard_win_wilds="face_value")) == (True, "yingzhuang", fs("san_wang"), 4)


def test_anhua_hard_if_natural_false_issue_hands():
    # wild 3m: 234m456m789p234s55s holds 3m, 4m, 4m, all at face value -> 硬莊 4 (not 平胡 單王 2)
    assert ah("234m 456m 789p 234s 55s", "5s", self_draw=True, indicator="3m",
              p=params(hard_if_natural=False)) == (True, "yingzhuang", fs("dan_wang"), 4)
    # wild 5m: 22m345m345m345m666m -> 硬莊 4 x 清一色 2 = 8 (the wild reading would give 16)
    assert ah("22m 345m 345m 345m 666m", "2m", self_draw=True, indicator="5m",
              p=params(hard_if_natural=False)) == (True, "yingzhuang", fs("san_wang", "qingyise"), 8)
    assert ah("22m 345m 345m 345m 666m", "2m", self_draw=True, indicator="5m") == (
        True, "pinghu", fs("san_wang", "qingyise", "xiaoqidui"), 16)


def test_anhua_discard_win_wilds():
    dan = "123m 456m 789p 22p 345s"            # one wild (5s, indicator 5s) at face value
    assert ah(dan, "3s", p=params(discard_win_wilds="none")) == NO_WIN
    assert ah(dan, "3s") == (True, "yingzhuang", fs("dan_wang"), 4)
    assert ah(dan, "3s", p=params(discard_win_wilds="face_value")) == (True, "yingzhuang", fs("dan_wang"), 4)
    plain = "123m 456m 789p 22p 789s"          # no wild
    for mode in ("none", "dan_wang_face_value", "face_value"):
        assert ah(plain, "7s", p=params(discard_win_wilds=mode)) == (True, "yingzhuang", fs(), 4)
        # a wild reading never wins on a plain discard
        assert ah("123m 456m 789p 22p 13s 5s", "1s", p=params(discard_win_wilds=mode)) == NO_WIN


def test_anhua_si_liu_qi_wang():
    assert ah("123m 456m 789p 2p 6666s", "2p", self_draw=True) == (
        True, "pinghu", fs("si_wang"), 8)
    assert ah("123m 456m 2p 78p 5s 6666s", "2p", self_draw=True) == (
        True, "pinghu", fs("si_wang"), 8)
    assert ah("123m 456m 78p 55s 6666s", "7p", self_draw=True) == (
        True, "pinghu", fs("liu_wang"), 8)
    # 七王 without declared melds: 7 natural tiles + 7 wilds are always 7 pairs too,
    # so 1 x 16 x 2 (小七對) = 32
    assert ah("123m 456m 9p 555s 6666s", "9p", self_draw=True) == (
        True, "pinghu", fs("qi_wang", "xiaoqidui"), 32)
    # with a declared meld 小七對 is impossible: 1 x 16
    assert ah("123m 4m 555s 6666s", "4m", self_draw=True, melds=[meld("pung", "999p")]) == (
        True, "pinghu", fs("qi_wang"), 16)
    # 四王 complete at face value (666s 678s): soft 8 beats hard 4
    assert ah("123m 456m 22p 666s 678s", "1m", self_draw=True) == (
        True, "pinghu", fs("si_wang"), 8)
    # base multiplies everything
    assert ah("123m 456m 789p 2p 6666s", "2p", self_draw=True, p=params(base=2))[3] == 16


def test_anhua_pair_258():
    assert ah("123m 456m 789p 234p 33s", "3s", self_draw=True) == NO_WIN
    assert ah("123m 456m 789p 234p 88s", "8s", self_draw=True) == (True, "yingzhuang", fs(), 4)
    assert ah("123m 456m 789p 234p 88s", "8s") == (True, "yingzhuang", fs(), 4)
    assert ah("123m 456m 789p 234p 33s", "3s", self_draw=True, p=params(pair_258=False)) == (
        True, "yingzhuang", fs(), 4)
    # 清一色: any pair (乱將); 4 x 2
    assert ah("123m 456m 789m 234m 33m", "3m", self_draw=True) == (
        True, "yingzhuang", fs("qingyise"), 8)
    assert ah("123m 456m 789m 234m 33m", "3m") == (True, "yingzhuang", fs("qingyise"), 8)


def test_anhua_wild_as_fifth_copy():
    # 2222p + wild: every decomposition needs the wild as a fifth 2p
    assert ah("2222p 123m 456m 789m 5s", "5s", self_draw=True) == (
        True, "pinghu", fs("dan_wang"), 2)


def test_anhua_pair_of_two_wilds():
    # indicator 6s: wilds are 6s (A) and 7s (B); 6s+7s as two wilds make a 258 pair
    assert ah("123m 456m 789p 234p 67s", "6s", self_draw=True, indicator="6s") == (
        True, "pinghu", fs("dan_wang"), 2)
    # 66s at face value is a pair of 6s, not 258: only soft
    assert ah("123m 456m 789p 234p 66s", "6s", self_draw=True, indicator="6s") == (
        True, "pinghu", fs("dan_wang"), 2)
    # without the 258 rule it is complete at face value: hard 4
    assert ah("123m 456m 789p 234p 66s", "6s", self_draw=True, indicator="6s",
              p=params(pair_258=False)) == (True, "yingzhuang", fs("dan_wang"), 4)


def test_anhua_soft_xiaoqidui_and_qingyise():
    # 1s + wild pair; 1 x 2 (單王) x 2 (小七對)
    assert ah("11m 33m 44m 55p 77p 99s 1s 5s", "1s", self_draw=True) == (
        True, "pinghu", fs("dan_wang", "xiaoqidui"), 4)
    # the wild takes the suit of the others: soft 清一色 (any pair), 1 x 2 x 2
    assert ah("123m 456m 789m 11m 34m 5s", "1m", self_draw=True) == (
        True, "pinghu", fs("dan_wang", "qingyise"), 4)


def test_anhua_declared_melds():
    # wilds at face value in an exposed meld are not counted
    assert ah("123m 456m 789p 22p", "1m", self_draw=True, melds=[meld("pung", "555s")]) == (
        True, "yingzhuang", fs(), 4)
    # 清一色 counts the melds: any pair
    assert ah("123m 456m 11m", "1m", self_draw=True,
              melds=[meld("pung", "999m"), meld("chow", "789m")]) == (
        True, "yingzhuang", fs("qingyise"), 8)


def test_anhua_contexts_and_cap():
    hand = "123m 456m 789p 234p 88s"
    assert ah(hand, "8s", self_draw=True, context="gangshanghua") == (
        True, "yingzhuang", fs("gangshanghua"), 8)
    assert ah(hand, "8s", context="gangshangpao") == (
        True, "yingzhuang", fs("gangshangpao"), 8)
    assert ah("123m 456m 9p 555s 6666s", "9p", self_draw=True, p=params(score_cap=8)) == (
        True, "pinghu", fs("qi_wang", "xiaoqidui"), 8)
    assert ah("11223344667799m", "1m", p=params(score_cap=10))[3] == 10
    # cap applies after the context multiplier: 16 x 2 = 32 -> 20
    assert ah("11223344667799m", "1m", context="qiangganghu", p=params(score_cap=20))[3] == 20


# =======================================================================================
# Anhua shanten / waits
# =======================================================================================

def test_anhua_shanten_and_waits():
    c = R.parse_hand
    # 3 type-A wilds + 2p: any tile completes it; 5s (indicator kind) has no copy left
    hand = c("123m 456m 789m 2p 555s")
    assert R.anhua_shanten(hand, [], k("5s")) == 0
    assert R.anhua_waits(hand, [], k("5s"), P) == [t for t in range(27) if t != k("5s")]
    # no 258 pair possible: 1-shanten, no waits; without the rule 3s pairs up
    hand = c("123m 456m 789p 234p 3s")
    assert R.anhua_shanten(hand, [], k("5s")) == 1
    assert R.anhua_waits(hand, [], k("5s"), P) == []
    assert R.anhua_shanten(hand, [], k("5s"), pair_258=False) == 0
    assert R.anhua_waits(hand, [], k("5s"), params(pair_258=False)) == [
        k("3s"), k("5s"), k("6s")]
    # 清一色 allows any pair
    hand = c("123m 456m 789m 234m 3m")
    assert R.anhua_shanten(hand, [], k("5s")) == 0
    assert {k("3m"), k("5s"), k("6s")} <= set(R.anhua_waits(hand, [], k("5s"), P))
    # complete
    assert R.anhua_shanten(c("123m 456m 789p 234p 88s"), [], k("5s")) == -1
    assert R.anhua_shanten(c("11223344667799m"), [], k("5s")) == -1


# =======================================================================================
# Internal consistency: two independent procedures must agree
# =======================================================================================

def _random_complete(rng, honors: bool, n_melds: int) -> list[int]:
    counts = [0] * 34
    top = 34 if honors else 27
    for _ in range(n_melds):
        kind = rng.random()
        if kind < 0.4:
            t = rng.randrange(top)
            counts[t] += 3
        elif kind < 0.85 or not honors:
            s, r = rng.randrange(3), rng.randrange(7)
            for d in range(3):
                counts[s * 9 + r + d] += 1
        elif rng.random() < 0.5:
            for t in rng.sample(R.WINDS, 3):
                counts[t] += 1
        else:
            for t in R.DRAGONS:
                counts[t] += 1
    if honors:
        counts[rng.randrange(top)] += 2
    else:
        counts[rng.choice([1, 4, 7, 10, 13, 16, 19, 22, 25])] += 2
    return counts


def test_consistency_wanzai_shanten_vs_evaluate():
    rng = random.Random(2024)
    for _ in range(1500):
        h = _random_complete(rng, True, 4)
        if max(h) > 4:
            continue
        if rng.random() < 0.6:  # perturb one tile
            out = rng.choice([t for t in range(34) if h[t]])
            h[out] -= 1
            h[rng.randrange(34)] += 1
        win = next(t for t in range(34) if h[t])
        assert (R.wanzai_shanten(h, []) == -1) == R.wanzai_evaluate(h, [], win, True, None, V)[0]


def test_consistency_anhua_shanten_vs_evaluate():
    rng = random.Random(7)
    for _ in range(1500):
        h = _random_complete(rng, False, 4)
        ind = rng.randrange(27)
        if rng.random() < 0.7:
            out = rng.choice([t for t in range(27) if h[t]])
            h[out] -= 1
            h[rng.randrange(27)] += 1
        a_kind, b_kind = R.anhua_wild_kinds(ind)
        if h[a_kind] > 3 or h[b_kind] > 4:
            continue
        win = next(t for t in range(27) if h[t])
        assert (R.anhua_shanten(h, [], ind) == -1) == \
            R.anhua_evaluate(h, [], win, True, ind, None, P)[0]


def test_jokers_agree_with_brute_force_substitution():
    """_can_form with W jokers == some assignment of kinds to the jokers is complete."""
    rng = random.Random(11)
    for _ in range(300):
        h = _random_complete(rng, False, 4)
        w = rng.choice([1, 2])
        for _ in range(w):
            h[rng.choice([t for t in range(27) if h[t]])] -= 1
        if rng.random() < 0.5:
            out = rng.choice([t for t in range(27) if h[t]])
            h[out] -= 1
            h[rng.randrange(27)] += 1
        nat = tuple(h)
        fast = R._can_form(nat, 4, 1, w, False, True, True)
        brute = False
        for kinds in combinations_with_replacement(range(27), w):
            full = list(nat)
            for t in kinds:
                full[t] += 1
            if R._can_form(tuple(full), 4, 1, 0, False, True, True):
                brute = True
                break
        assert fast == brute, (h, w)

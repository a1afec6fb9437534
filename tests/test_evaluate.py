"""Every pattern row and example of RULES.md §2.2-2.3 and §3.1-3.3, through the public API.

Expected values are worked out by hand from RULES.md in the comments next to each case.
"""
import numpy as np
import pytest

import mjsim
from mjsim import Rules, TileError, evaluate, evaluate_batch, shanten, waits

W = Rules.load("wanzai")
A = Rules.load("anhua")


def ev(rules, hand, **kw):
    e = evaluate(rules, hand, **kw)
    return e.win, e.pattern, e.points


# ---------------------------------------------------------------- Wanzai pattern rows

@pytest.mark.parametrize(
    "hand, pattern, discard, self_",
    [
        ("123234m456p789s11z", "pinghu", 2, 1),
        ("123567z123456m77p", "pinghu", 2, 1),          # 東南西 and 中發白 as melds
        ("111234567z123m55p", "pinghu", 2, 1),          # 東東東 + 南西北 + 中發白
        ("122234z123456m99s", "pinghu", 2, 1),          # 南南南 + 東西北 (non-adjacent winds)
        ("147m258p369s12345z", "shisanlan", 2, 2),      # 1-4-7 spacing is allowed
        ("148m259p369s12345z", "shisanlan", 2, 2),      # gaps of 3 and 4
        ("147m258p9s1234567z", "qixing_shisanlan", 4, 4),
        ("111m222p333s444z55z", "daqidui", 3, 3),
        ("1122m3344p5566s77z", "qixiaodui", 5, 5),
        ("1111m3344p5566s77z", "haohua_qixiaodui", 10, 10),   # a four of a kind = two pairs
        ("1111m3333p5566s77z", "shuang_haohua_qixiaodui", 20, 20),
        ("1111m3333p5555s77z", "san_haohua_qixiaodui", 40, 40),
        ("11122233345699m", "qingyise_pinghu", 5, 5),
        ("11122233355588m", "qingyise_daqidui", 10, 10),
        ("11223344556677m", "qingyise_qixiaodui", 10, 10),    # beats qingyise_pinghu 5
        ("11112233445566m", "qingyise_haohua_qixiaodui", 20, 20),
        ("11112222334455m", "qingyise_shuang_haohua_qixiaodui", 40, 40),
        ("11112222333355m", "qingyise_san_haohua_qixiaodui", 40, 40),
    ],
)
def test_wanzai_pattern_rows(hand, pattern, discard, self_):
    assert ev(W, hand, self_draw=False, win_tile=mjsim.parse_tiles(hand)[0]) == (True, pattern, discard)
    assert ev(W, hand, self_draw=True) == (True, pattern, self_)


def test_wanzai_properties_are_reported_separately():
    e = evaluate(W, "11223344556677m")
    assert e.properties == {"pinghu", "qixiaodui", "qingyise"}
    e = evaluate(W, "147m258p9s1234567z")
    assert e.properties == {"shisanlan", "qixing_shisanlan"}


@pytest.mark.parametrize(
    "hand",
    [
        "137m258p369s12345z",   # 1 and 3 differ by 2: not 十三爛
        "147m258p369s11234z",   # honors not all different
        "124m456p789s12356z",   # plain junk
    ],
)
def test_not_winning(hand):
    assert evaluate(W, hand).win is False


def test_quanqiuren_discard_and_self_draw():
    melds = [("pung", "111p"), ("pung", "222p"), ("chow", "345s"), ("chow", "東南西")]
    e = evaluate(W, "11m", melds, win_tile="1m", self_draw=False)
    # pinghu and quanqiuren both pay 2 on a discard: the id further down the table wins
    assert (e.pattern, e.points) == ("quanqiuren", 2)
    assert e.properties == {"pinghu", "quanqiuren"}
    # RULES §2.2: self-drawn it is a 平胡 self-draw (如果自摸自能算平胡自摸), pattern and value,
    # and properties list quanqiuren only when it is scored as one
    e = evaluate(W, "11m", melds, self_draw=True)
    assert (e.pattern, e.points, e.properties) == ("pinghu", 1, {"pinghu"})
    # the case: values.quanqiuren = [2, 3] must not raise a self-draw to 3 per payer
    high = W.with_overrides(**{"values.quanqiuren": [2, 3]})
    assert ev(high, "11m", melds=melds, self_draw=True) == (True, "pinghu", 1)
    assert ev(high, "11m", melds=melds, self_draw=False, win_tile="1m") == (True, "quanqiuren", 2)
    # a robbed kong scores as a self-draw (§2.5): pinghu too
    e = evaluate(W, "11m", melds, win_tile="1m", self_draw=False, context="qiangganghu")
    assert (e.pattern, e.points, e.properties) == ("pinghu", 1, {"pinghu"})
    # house variant quanqiuren_self = "quanqiuren": values.quanqiuren[1]
    house = high.with_overrides(quanqiuren_self="quanqiuren")
    e = evaluate(house, "11m", melds, self_draw=True)
    assert (e.pattern, e.points, e.properties) == ("quanqiuren", 3, {"pinghu", "quanqiuren"})
    assert ev(house, "11m", melds=melds, win_tile="1m", self_draw=False, context="qiangganghu") == (True, "quanqiuren", 3)
    # a concealed kong breaks 全求人
    melds[0] = ("concealed_kong", "1111p")
    assert ev(W, "11m", melds=melds, self_draw=False, win_tile="1m") == (True, "pinghu", 2)


def test_self_drawn_qingyise_quanqiuren_is_qingyise_pinghu():
    melds = [("pung", "111m"), ("pung", "222m"), ("chow", "345m"), ("kong", "9999m")]
    e = evaluate(W, "77m", melds, self_draw=True)
    assert (e.pattern, e.points) == ("qingyise_pinghu", 5) and "quanqiuren" not in e.properties
    e = evaluate(W, "77m", melds, self_draw=False, win_tile="7m")
    assert (e.pattern, e.points) == ("qingyise_pinghu", 5) and "quanqiuren" in e.properties


def test_honor_runs_any_three_winds_but_not_winds_with_a_dragon():
    """RULES §2.1: 東南北 is a meld (any three different winds); 東南中 is not."""
    assert ev(W, "124z123m456p789s55s", self_draw=True) == (True, "pinghu", 1)
    assert evaluate(W, "125z123m456p789s55s").win is False
    assert ev(W, "134z567z123m456p99s", self_draw=True) == (True, "pinghu", 1)     # 東西北 + 中發白
    assert evaluate(W, "345z567z123m456p99s").win is False                         # 西北中 is no meld
    # as declared chows too
    assert ev(W, "123m456p789s55s", melds=[("chow", "東南北")], self_draw=True) == (True, "pinghu", 1)
    with pytest.raises(ValueError):
        evaluate(W, "123m456p789s55s", melds=[("chow", "東南中")])
    # the batch evaluator and shanten agree
    hands = np.zeros((2, 34), np.uint8)
    for i, text in enumerate(("124z123m456p789s55s", "125z123m456p789s55s")):
        for k in mjsim.parse_tiles(text):
            hands[i, k] += 1
    win, _, _ = evaluate_batch(W, hands)
    assert list(win) == [True, False]
    assert shanten(W, "124z123m456p789s5s") == 0 and shanten(W, "125z123m456p789s5s") == 1


def test_qingyise_quanqiuren_uses_the_qingyise_pinghu_row():
    melds = [("pung", "111m"), ("pung", "222m"), ("chow", "345m"), ("kong", "9999m")]
    assert ev(W, "77m", melds=melds, self_draw=False, win_tile="7m") == (True, "qingyise_pinghu", 5)


def test_daqidui_with_exposed_pungs_but_not_with_a_chow():
    assert ev(W, "222p444z55z", melds=[("pung", "111m"), ("kong", "3333s")], self_draw=True)[:2] == (True, "daqidui")
    assert ev(W, "222p444z55z", melds=[("chow", "123m"), ("kong", "3333s")], self_draw=True)[:2] == (True, "pinghu")


def test_value_table_and_tie_rule_follow_rule_overrides():
    r = W.with_overrides(values={"daqidui": [2, 1]})
    # daqidui now ties pinghu: the id further down the table (daqidui) is scored
    assert ev(r, "111m222p333s444z55z", self_draw=True) == (True, "daqidui", 1)
    r = W.with_overrides(values={"pinghu": [7, 4]})
    assert ev(r, "111m222p333s444z55z", self_draw=True) == (True, "pinghu", 4)
    assert ev(W.with_overrides(base=3), "123234m456p789s11z", self_draw=True)[2] == 3


def test_robbing_a_kong_scores_as_self_draw_in_wanzai():
    e = evaluate(W, "111m222p333s444z55z", win_tile="5z", self_draw=False, context="qiangganghu")
    assert (e.pattern, e.points) == ("daqidui", 3)
    assert e.properties == {"daqidui", "pinghu"}
    assert evaluate(W, "123234m456p789s11z", win_tile="1z", self_draw=False, context="qiangganghu").points == 1


# ---------------------------------------------------------------- Anhua (wild indicator 1p: wilds 1p and 2p)

def test_anhua_document_example_16():
    # 硬莊 清一色 小七對 = 1 x 4 x 2 x 2 = 16
    e = evaluate(A, "22335566778899m", wild="1p")
    assert (e.win, e.pattern, e.points, e.hard) == (True, "yingzhuang", 16, True)
    assert e.properties == {"qingyise", "xiaoqidui"}
    assert ev(A.with_overrides(score_cap=8), "22335566778899m", wild="1p") == (True, "yingzhuang", 8)
    # in units of base, as every amount (RULES §1 Units): base 2 doubles the capped score too
    assert ev(A.with_overrides(score_cap=8, base=2), "22335566778899m", wild="1p") == (True, "yingzhuang", 16)
    assert evaluate(A, "22335566778899m", wild="1p", context="gangshanghua").points == 32


def test_anhua_pair_must_be_258_unless_qingyise():
    assert ev(A, "234567m888p234s55s", wild="1p") == (True, "yingzhuang", 4)
    assert ev(A, "234567m888p234s66s", wild="1p")[0] is False
    assert ev(A.with_overrides(pair_258=False), "234567m888p234s66s", wild="1p") == (True, "yingzhuang", 4)
    # 清一色 takes any pair (乱將): 111 123 456 789 99
    assert ev(A, "11112345678999m", wild="1p") == (True, "yingzhuang", 8)


@pytest.mark.parametrize(
    "hand, category, points",
    [
        ("123456789m1234p5p", "dan_wang", 2),   # a=1 b=1: 5p+wild pair, 34p+wild run
        ("2222p123456789m5s", "si_wang", 8),    # b=4
        ("112222p1234567m8s", "liu_wang", 8),   # a=2 b=4: 7m+2 wilds, 8s+wild pair, 3 wilds
        ("112222p12345678m", "liu_wang", 16),   # naturals all 萬: wilds join the suit, 清一色 x2
        ("1112222p123m456s7p", "qi_wang", 32),  # a=3 b=4: 16, and 7 naturals + 7 wilds = 小七對 x2
        ("222p123456789m55s", "san_wang", 4),   # b=3; also 硬莊? 222p is a triplet: 4 vs 4, hard wins
    ],
)
def test_anhua_wild_categories(hand, category, points):
    e = evaluate(A, hand, wild="1p")
    assert e.win and e.category == category and e.points == points
    assert category in e.properties


def test_anhua_category_boundaries_from_rules_examples():
    from mjsim._core import CATEGORIES

    # document examples: 1/2/12/11/22/112/122/1122 dan; 111/222/1112/1222/11122... san;
    # 2222/12222 si; 112222 liu; 1112222 qi
    expected = {
        (1, 0): "dan_wang", (0, 1): "dan_wang", (1, 1): "dan_wang", (2, 0): "dan_wang",
        (0, 2): "dan_wang", (2, 1): "dan_wang", (1, 2): "dan_wang", (2, 2): "dan_wang",
        (3, 0): "san_wang", (0, 3): "san_wang", (3, 1): "san_wang", (1, 3): "san_wang",
        (3, 2): "san_wang", (2, 3): "san_wang", (3, 3): "san_wang",
        (0, 4): "si_wang", (1, 4): "si_wang", (2, 4): "liu_wang", (3, 4): "qi_wang",
    }
    from mjsim import _core  # noqa: F401  (category_of is exercised through evaluate below)

    for (a, b), cat in expected.items():
        # a hand of a type-A and b type-B wilds plus naturals, self-drawn: category is reported
        hand = "1p" * a + "2p" * b
        naturals = 14 - a - b
        filler = "123456789m123456789s"  # 18 naturals to take from
        tiles = mjsim.parse_tiles(hand) + mjsim.parse_tiles(filler)[:naturals]
        e = evaluate(A, tiles, wild="1p")
        assert e.category == cat, (a, b)
    assert CATEGORIES[0] is None


def test_anhua_wild_stands_for_a_fifth_copy():
    # 5555m + one wild: 555m and 5m+wild as the 5m pair (a fifth 5m)
    assert ev(A, "5555m1p234p678p999s", wild="1p") == (True, "pinghu", 2)


def test_anhua_258_pair_made_of_two_wilds():
    assert ev(A, "1p2p123456789m123s", wild="1p") == (True, "pinghu", 2)


def test_anhua_discard_eligibility():
    # 單王 complete at face value: allowed on a discard, scored 硬莊
    assert ev(A, "123456789m123p55p", wild="1p", self_draw=False, win_tile="9m") == (True, "yingzhuang", 4)
    # 單王 that needs its wild: refused on a discard, fine as a self-draw
    assert ev(A, "123456789m1234p5p", wild="1p", self_draw=False, win_tile="9m")[0] is False
    assert ev(A, "123456789m1234p5p", wild="1p")[0] is True
    # 三王 is refused on a discard even when complete at face value
    assert ev(A, "111p234m567m888s55s", wild="1p", self_draw=False, win_tile="5s")[0] is False
    assert ev(A, "111p234m567m888s55s", wild="1p") == (True, "yingzhuang", 4)
    # a wild-kind tile won from a discard is its face value: 2p completes 123p, no wild in hand
    e = evaluate(A, "123456789m123p55s", wild="1p", self_draw=False, win_tile="2p")
    assert (e.win, e.category) == (True, "dan_wang")  # the 1p left in hand is a wild


def test_anhua_rob_kong_and_gangshangpao_allow_single_wild_substitution():
    e = evaluate(A, "123456789m1234p5p", wild="1p", self_draw=False, win_tile="9m", context="qiangganghu")
    assert (e.win, e.pattern, e.points) == (True, "pinghu", 4)  # 平胡 x 單王 2 x 搶槓 2
    assert "qiangganghu" in e.properties
    e = evaluate(A, "111p234m567m888s55s", wild="1p", self_draw=False, win_tile="5s", context="gangshangpao")
    assert e.win is False  # 三王


def test_anhua_hard_if_natural():
    # 單王 hand complete at face value: scored both ways (4 vs 2) by default ...
    assert ev(A, "123456789m123p55p", wild="1p") == (True, "yingzhuang", 4)
    # 七王, not complete at face value: 平胡 x 16 x 小七對 2
    assert ev(A, "1112222p123m456s7p", wild="1p") == (True, "pinghu", 32)
    # a 三王 hand complete at face value: 硬莊 4 ties 平胡 x 三王 4, and 硬莊 is kept
    assert ev(A, "111p234m567m888s55s", wild="1p") == (True, "yingzhuang", 4)
    # the hand, default: 硬莊 4 x 清一色 2 = 8 loses to 平胡 x 三王 4 x 小七對 2 x 清一色 2 = 16
    assert ev(A, "22m345m345m345m666m", wild="5m") == (True, "pinghu", 16)


def test_anhua_hard_if_natural_false_is_hard_full_stop():
    """RULES §3.2: with hard_if_natural = false a hand complete with every wild at face value
    is 硬莊, full stop, whatever a wild reading would score."""
    off = A.with_overrides(hard_if_natural=False)
    # wild 3m: wilds 3m (A) and 4m (B); 3m 4m 4m at face value -- 硬莊 4, not 平胡 單王 2
    e = evaluate(off, "234m456m789p234s55s", wild="3m")
    assert (e.win, e.pattern, e.points, e.hard, e.category) == (True, "yingzhuang", 4, True, "dan_wang")
    # wild 5m: 三王 (5m x3, 6m x3); face value 硬莊 4 x 清一色 2 = 8, not the 16 of a wild reading
    e = evaluate(off, "22m345m345m345m666m", wild="5m")
    assert (e.win, e.pattern, e.points, e.hard) == (True, "yingzhuang", 8, True)
    assert e.properties == {"qingyise", "san_wang"}
    # more or less: the 三王 hand above (硬莊 4 ties) and the 單王 one (4 beats 2) stay 硬莊
    assert ev(off, "111p234m567m888s55s", wild="1p") == (True, "yingzhuang", 4)
    assert ev(off, "123456789m123p55p", wild="1p") == (True, "yingzhuang", 4)
    # a hand complete only with a wild substituting is 平胡 with its multiplier either way
    assert ev(off, "1112222p123m456s7p", wild="1p") == (True, "pinghu", 32)
    assert ev(off, "123456789m1234p5p", wild="1p") == (True, "pinghu", 2)


@pytest.mark.parametrize("mode,dan_face,san_face,plain", [
    ("dan_wang_face_value", True, False, True),
    ("none", False, False, True),
    ("face_value", True, True, True),
])
def test_anhua_discard_win_wilds(mode, dan_face, san_face, plain):
    """RULES §3.3 discard_win_wilds: who may win on a discard while holding wilds."""
    r = A.with_overrides(discard_win_wilds=mode)
    # 單王 complete at face value
    assert ev(r, "123456789m123p55p", wild="1p", self_draw=False, win_tile="9m") == (
        (True, "yingzhuang", 4) if dan_face else (False, None, 0))
    # 三王 complete at face value
    assert ev(r, "111p234m567m888s55s", wild="1p", self_draw=False, win_tile="5s") == (
        (True, "yingzhuang", 4) if san_face else (False, None, 0))
    # a hand that needs a wild substituting never wins on a discard
    assert ev(r, "123456789m1234p5p", wild="1p", self_draw=False, win_tile="9m")[0] is False
    # no wild in hand: always
    assert ev(r, "123456789m345p55s", wild="1p", self_draw=False, win_tile="9m")[0] is plain
    # 搶槓胡 keeps its own rule (no wild or 單王, wild substituting) under every mode
    e = evaluate(r, "123456789m1234p5p", wild="1p", self_draw=False, win_tile="9m", context="qiangganghu")
    assert (e.win, e.points) == (True, 4)
    e = evaluate(r, "111p234m567m888s55s", wild="1p", self_draw=False, win_tile="5s", context="qiangganghu")
    assert e.win is False


def test_anhua_multipliers_are_rule_parameters():
    r = A.with_overrides(multipliers={"yingzhuang": 5, "qingyise": 3, "xiaoqidui": 7})
    assert ev(r, "22335566778899m", wild="1p") == (True, "yingzhuang", 5 * 3 * 7)
    r = A.with_overrides(multipliers={"dan_wang": 3})
    assert ev(r, "123456789m1234p5p", wild="1p")[2] == 3


# ---------------------------------------------------------------- shanten and waits

def test_shanten_and_waits_wanzai():
    assert shanten(W, "1112345678999m") == 0
    assert waits(W, "1112345678999m") == [f"{i}m" for i in range(1, 10)]
    assert shanten(W, "147m258p369s1234z") == 0          # 十三爛 tenpai
    assert waits(W, "147m258p369s1234z") == ["5z", "6z", "7z"]
    assert waits(W, "1122m3344p5566s7z") == ["7z"]       # 七小對 single wait
    assert shanten(W, "159m26p37s123456z") == 0           # 13 十三爛-compatible tiles
    assert shanten(W, "123234m456p789s11z") == -1


def test_waits_skip_kinds_whose_copies_are_all_held():
    # 111m + 1m waits only on a fifth 1m, which does not exist
    assert shanten(W, "1111m456p789s123z") == 0
    assert waits(W, "1111m456p789s123z") == []


def test_shanten_anhua_counts_wilds():
    # 12 naturals + a wild: any tile completes -> tenpai; the wild is 1p
    assert shanten(A, "123456789m123s1p", wild="1p") == 0
    assert shanten(A, "123456789m123s1p5s", wild="1p") == -1


# ---------------------------------------------------------------- batch and bad input

def test_batch_matches_single_evaluation():
    hands = ["123234m456p789s11z", "1111m3344p5566s77z", "147m258p9s1234567z", "124m456p789s12356z"]
    counts = np.array([mjsim.tiles.to_counts(mjsim.parse_tiles(h)) for h in hands], dtype=np.uint8)
    win, code, points = evaluate_batch(W, counts)
    for i, h in enumerate(hands):
        e = evaluate(W, h)
        assert bool(win[i]) == e.win and points[i] == e.points
        assert (mjsim.PATTERNS[code[i]] if code[i] >= 0 else None) == e.pattern


@pytest.mark.parametrize("call", [
    lambda: mjsim.evaluate("wanzai", "123234m456p789s11z"),
    lambda: mjsim.shanten(None, "123234m456p789s1z"),
    lambda: mjsim.evaluate_batch(None, np.zeros((1, 34), np.uint8)),
    lambda: mjsim.shanten_batch("wanzai", np.zeros((1, 34), np.uint8)),
])
def test_rules_that_are_not_rules_are_named_by_every_entry(call):
    """The batch entries once gave AttributeError: 'str' object has no attribute 'traits'."""
    with pytest.raises(TypeError, match=r"rules must be a mjsim.Rules \(use mjsim.Rules.load\('wanzai'\)\), got"):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: evaluate(W, "123m"), "must have 14"),
        (lambda: evaluate(W, "11111m234p567s111z"), "5 copies of 1m"),
        (lambda: evaluate(W, "123234m456p789s11z", wild="1p"), "Wanzai has no wilds"),
        (lambda: evaluate(A, "123234m456p789s11z", wild="1p"), "honors"),
        (lambda: evaluate(A, "123456789m1111p5p", wild="1p"), "indicator"),
        (lambda: evaluate(A, "22335566778899m"), "indicator"),
        (lambda: evaluate(W, "123234m456p789s1x"), "unknown tile character 'x'"),
        (lambda: evaluate(W, "11m", [("pong", "111p")]), "unknown meld kind"),
        (lambda: evaluate(W, "11m", [("chow", "135p")] * 4), "not a run"),
        (lambda: evaluate(W, "123234m456p789s11z", context="tianhu"), "unknown context"),
        (lambda: evaluate(W, "123234m456p789s11z", win_tile="9p"), "not in the hand"),
        (lambda: evaluate_batch(W, np.zeros((2, 33), np.uint8)), "(N, 34)"),
        (lambda: evaluate_batch(W, np.full((2, 34), 5, np.uint8)), "outside 0..4"),
        (lambda: evaluate_batch(W, np.zeros((2, 34), np.uint8)), "must hold 14"),
    ],
)
def test_bad_input_is_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=None) as info:
        call()
    assert message in str(info.value)
    assert isinstance(info.value, (TileError, ValueError))

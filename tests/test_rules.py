"""Tests for mjsim.rules: shipped defaults (RULES.md), overrides, user files, errors, hashing."""
from __future__ import annotations

import copy
import os
import pickle
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import mjsim.rulesets.rules as mjsim_rules_module
from mjsim.rulesets.rules import (
    ANHUA_MULTIPLIER_IDS,
    SCHEMA,
    SHIPPED,
    WANZAI_VALUE_IDS,
    Rules,
    RulesError,
    parse_override,
)

# the installed package's files (tests run against an installed mjsim, editable or not)
RULES_DIR = Path(mjsim_rules_module.__file__).parent

# The defaults of RULES.md, copied from its text (the section of each is given), not from
# the shipped files or the code.  Key order is the schema's (the shipped files' order).
WANZAI_DEFAULTS = {
    "rules": "wanzai",                          # §2 (rules = "wanzai")
    "base": 1,                                  # §1 Units, §2.3 "in units of base = 1"
    "wall_model": "table",                      # §1 Wall and dice
    "honor_chow": True,                         # §2.1
    "multiple_ron": True,                       # §2.1 一炮多響
    "added_kong_on_draw_only": True,            # §2.1 摸到即槓
    "kong_pay_on_draw": True,                   # §2.4
    "dealer_pays_double": False,                # §2.5 打莊帶火
    "pass_ron_lock": "until_own_discard",       # §2.1 漏胡
    "fire": [0.0, 0.0, 0.0, 0.0],               # §2.5 上火
    "fire_min_hands": 4,                        # §2.5
    "piao": [0, 0, 0, 0],                       # §2.5 飄
    "rob_kong_pays": "all",                     # §2.5 搶槓
    "quanqiuren_self": "pinghu",                # §2.2 全求人 won by self-draw
    "first_dealer": "random",                   # §1 Sessions and the first dealer
    "dealer_next": "winner",                    # §2.6
    "dealer_on_draw": "stay",                   # §2.6
    "kong_values": {"added": 1, "exposed": 2, "concealed": 2},   # §2.4 欠槓 1, 直槓 2, 暗槓 2
    "values": {                                 # §2.3 [discard, self]
        "pinghu": [2, 1],
        "shisanlan": [2, 2],
        "qixing_shisanlan": [4, 4],
        "quanqiuren": [2, 1],
        "daqidui": [3, 3],
        "qixiaodui": [5, 5],
        "haohua_qixiaodui": [10, 10],
        "shuang_haohua_qixiaodui": [20, 20],
        "san_haohua_qixiaodui": [40, 40],
        "qingyise_pinghu": [5, 5],
        "qingyise_daqidui": [10, 10],
        "qingyise_qixiaodui": [10, 10],
        "qingyise_haohua_qixiaodui": [20, 20],
        "qingyise_shuang_haohua_qixiaodui": [40, 40],
        "qingyise_san_haohua_qixiaodui": [40, 40],
    },
}

ANHUA_DEFAULTS = {
    "rules": "anhua",                           # §3 (rules = "anhua")
    "base": 1,                                  # §1 Units, §3.2 "base(1)"
    "wall_model": "table",                      # §1 Wall and dice
    "pair_258": True,                           # §3.2
    "hard_if_natural": True,                    # §3.2 (with it a hand complete both ways is scored both ways)
    "multiple_ron": False,                      # §3.3 截胡
    "discard_win_wilds": "dan_wang_face_value",  # §3.3 接炮
    "added_kong_on_draw_only": True,            # §3.4 碰牌后再次摸到一张同样的牌时即可开杠
    "pass_ron_lock": "same_kind_until_own_discard",  # §3.3 漏胡: a tile of the same kind, until their own turn
    "rob_kong_pays": "one",                     # §3.3 搶槓胡
    "instant_win_categories": ["si_wang", "qi_wang"],  # §3.3 特殊平胡
    "instant_win_score": 2,                     # §3.3
    "kong_min_wall": 5,                         # §3.4
    "buzhang_tiles": 3,                         # §3.4 補章
    "birds": 1,                                 # §3.5 抓鳥
    "score_cap": 0,                             # §3.2 (0 = no cap)
    "first_dealer": "random",                   # §1, §3.6
    "dealer_next": "winner",                    # §3.6 the winner deals
    "dealer_on_draw": "last_drawer",            # §3.6 海底
    "multipliers": {                            # §3.2
        "yingzhuang": 4,
        "pinghu": 1,
        "dan_wang": 2,
        "san_wang": 4,
        "si_wang": 8,
        "liu_wang": 8,
        "qi_wang": 16,
        "qingyise": 2,
        "xiaoqidui": 2,
        "gangshanghua": 2,
        "qiangganghu": 2,
        "gangshangpao": 2,
    },
}

DEFAULTS = {"wanzai": WANZAI_DEFAULTS, "anhua": ANHUA_DEFAULTS}


@pytest.fixture(scope="module")
def wanzai() -> Rules:
    return Rules.load("wanzai")


@pytest.fixture(scope="module")
def anhua() -> Rules:
    return Rules.load("anhua")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---- shipped defaults -------------------------------------------------------------------


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_defaults_match_rules_md(game):
    rules = Rules.load(game)
    assert rules.as_dict() == DEFAULTS[game]
    assert list(rules.params) == list(DEFAULTS[game])  # schema / file order
    assert rules.game == game and rules.name == game
    assert rules.source == f"{game} (shipped)"
    assert rules.variant == game
    assert rules.changes() == {}


@pytest.mark.parametrize("game", SHIPPED)
def test_every_default_key_by_dotted_access(game):
    rules = Rules.load(game)
    for key, value in DEFAULTS[game].items():
        if isinstance(value, dict):
            for sub, v in value.items():
                expected = tuple(v) if isinstance(v, list) else v
                assert rules[f"{key}.{sub}"] == expected, f"{key}.{sub}"
        else:
            expected = tuple(value) if isinstance(value, list) else value
            assert rules[key] == expected, key
            assert type(rules[key]) is type(expected), key


def test_spot_values(wanzai, anhua):
    assert wanzai["values.pinghu"] == (2, 1)
    assert wanzai["values.qingyise_san_haohua_qixiaodui"] == (40, 40)
    assert wanzai["kong_values.exposed"] == 2
    assert wanzai["fire"] == (0.0, 0.0, 0.0, 0.0)
    assert all(isinstance(f, float) for f in wanzai["fire"])
    assert anhua["birds"] == 1
    assert anhua["multipliers.qi_wang"] == 16
    assert anhua["instant_win_categories"] == ("si_wang", "qi_wang")
    assert wanzai.get("birds") is None
    assert anhua.get("birds", 9) == 1
    assert anhua.get("values.pinghu", "x") == "x"
    assert "birds" in anhua and "multipliers.pinghu" in anhua
    assert "birds" not in wanzai and "values.nope" not in wanzai
    with pytest.raises(KeyError, match="brids"):
        anhua["brids"]


def test_exports():
    assert SHIPPED == ("wanzai", "anhua")
    assert WANZAI_VALUE_IDS == tuple(WANZAI_DEFAULTS["values"])
    assert ANHUA_MULTIPLIER_IDS == tuple(ANHUA_DEFAULTS["multipliers"])
    for game in SHIPPED:
        assert list(SCHEMA[game]) == list(DEFAULTS[game])


def test_schema_shares_common_entries():
    common = set(SCHEMA["wanzai"]) & set(SCHEMA["anhua"])
    assert {"rules", "base", "wall_model", "multiple_ron", "pass_ron_lock", "rob_kong_pays"} <= common
    for key in common:  # defined once, not copied
        assert SCHEMA["wanzai"][key] is SCHEMA["anhua"][key], key


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_file_is_documented(game):
    text = (RULES_DIR / f"{game}.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("#") and "mjsim" in lines[0]
    assert tomllib.loads(text) == DEFAULTS[game]
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            assert re.search(r"#\s*§\d", line), f"no RULES.md section cited: {line!r}"


def test_load_is_case_insensitive(wanzai):
    assert Rules.load("WanZai") == wanzai
    assert Rules.load("WanZai").name == "wanzai"


# ---- overrides --------------------------------------------------------------------------


def test_override_scalar(anhua):
    r = anhua.with_overrides(birds=2)
    assert r["birds"] == 2
    assert anhua["birds"] == 1  # original untouched
    assert r.source == "anhua (shipped) + override"
    assert r.changes() == {"birds": 2}
    assert Rules.load("anhua", birds=2) == r


def test_override_nested_dict_merges(wanzai):
    r = wanzai.with_overrides(values={"pinghu": [3, 1]}, kong_values={"added": 0})
    assert r["values.pinghu"] == (3, 1)
    assert r["values.shisanlan"] == (2, 2)  # rest of the table kept
    assert r["kong_values.added"] == 0 and r["kong_values.exposed"] == 2
    assert r.changes() == {"values.pinghu": [3, 1], "kong_values.added": 0}


def test_override_dotted_key(wanzai, anhua):
    r = wanzai.with_overrides(**{"values.pinghu": [3, 1]})
    assert r == wanzai.with_overrides(values={"pinghu": [3, 1]})
    a = Rules.load("anhua", **{"multipliers.qi_wang": 32, "birds": 0})
    assert a["multipliers.qi_wang"] == 32 and a["multipliers.si_wang"] == 8 and a["birds"] == 0


def test_override_lists_and_conversions(wanzai, anhua):
    r = wanzai.with_overrides(fire=[0.5, 0, 1, 0.25], piao=(1, 2, 1, 0), wall_model="flat")
    assert r["fire"] == (0.5, 0.0, 1.0, 0.25)
    assert all(isinstance(f, float) for f in r["fire"])
    assert r["piao"] == (1, 2, 1, 0)
    assert r["wall_model"] == "flat"
    assert anhua.with_overrides(instant_win_categories=[])["instant_win_categories"] == ()


def test_override_numpy_numbers_are_plain_numbers(wanzai, anhua):
    """A sweep over np.arange(...) passes numpy scalars: they are numbers like any other."""
    import numpy as np

    r = anhua.with_overrides(birds=np.int64(2), **{"multipliers.qingyise": np.uint8(4)})
    assert r == anhua.with_overrides(birds=2, **{"multipliers.qingyise": 4})
    assert type(r["birds"]) is int and r.hash == anhua.with_overrides(birds=2, multipliers={"qingyise": 4}).hash
    w = wanzai.with_overrides(piao=[np.int32(1), 2, 1, 0], fire=[np.float32(0.5), 0, 1, np.float64(0.25)])
    assert w["piao"] == (1, 2, 1, 0) and w["fire"] == (0.5, 0.0, 1.0, 0.25)
    assert all(type(f) is float for f in w["fire"])
    with pytest.raises(RulesError, match=r"key .birds.: expected an integer 0\.\.10, got np.True_"):
        anhua.with_overrides(birds=np.True_)


def test_override_chain_and_back_to_default(anhua):
    r = anhua.with_overrides(birds=2).with_overrides(score_cap=64)
    assert r.source == "anhua (shipped) + override"
    assert r.changes() == {"birds": 2, "score_cap": 64}
    back = r.with_overrides(birds=1, score_cap=0)
    assert back == anhua and back.hash == anhua.hash and back.variant == "anhua"
    assert anhua.with_overrides() is anhua


def test_override_same_rules_value_is_allowed(anhua):
    assert anhua.with_overrides(rules="anhua") == anhua


@pytest.mark.parametrize(
    "text, expected",
    [
        ("birds=2", ("birds", 2)),
        (" birds = 2 ", ("birds", 2)),
        ("fire=[0.5,0,0,0]", ("fire", [0.5, 0, 0, 0])),
        ("wall_model=flat", ("wall_model", "flat")),
        ('wall_model="flat"', ("wall_model", "flat")),
        ("honor_chow=false", ("honor_chow", False)),
        ("values.pinghu=[3,1]", ("values.pinghu", [3, 1])),
        ("values={pinghu=[3,1]}", ("values", {"pinghu": [3, 1]})),
        ("instant_win_categories=[]", ("instant_win_categories", [])),
        # valid TOML in any spelling stays accepted beside the malformed-value refusal below
        ('wall_model="a b"', ("wall_model", "a b")),
        ("wall_model='C:\\x'", ("wall_model", "C:\\x")),
        ("values.pinghu=[3,1] # from the club", ("values.pinghu", [3, 1])),
        ("values.pinghu=[3,1,]", ("values.pinghu", [3, 1])),
        ("x=[[1,2],[3,4]]", ("x", [[1, 2], [3, 4]])),
    ],
)
def test_parse_override(text, expected):
    assert parse_override(text) == expected


def test_parse_override_feeds_with_overrides(wanzai, anhua):
    overrides = dict(parse_override(t) for t in ["fire=[0.5,0,0,0]", "values.pinghu=[3,1]", "wall_model=flat"])
    r = wanzai.with_overrides(**overrides)
    assert r["fire"] == (0.5, 0.0, 0.0, 0.0) and r["values.pinghu"] == (3, 1) and r["wall_model"] == "flat"
    with pytest.raises(RulesError, match=r"key 'birds': expected an integer 0\.\.10, got \"two\""):
        anhua.with_overrides(**dict([parse_override("birds=two")]))


@pytest.mark.parametrize("text, fragment", [("birds", "no '='"), ("=2", "no key"), ("birds=", "missing value"),
                                            ("fire=[0.2,0.2,0.2,", "key 'fire': '[0.2,0.2,0.2,' is not a valid TOML value "
                                                                   "(Invalid value); write a list as [3,1]"),
                                            ('wall_model="flat', "key 'wall_model': '\"flat' is not a valid TOML value"),
                                            ("values={pinghu=[3,1]", "not a valid TOML value")])
def test_parse_override_errors(text, fragment):
    with pytest.raises(RulesError) as info:
        parse_override(text)
    assert "override" in str(info.value) and fragment in str(info.value)


# ---- overrides typed on a command line (--set, --grid, --vary) -------------------------


def test_command_line_overrides_fill_a_list_or_set_one_entry(wanzai, anhua):
    from mjsim.rulesets.rules import command_line_overrides

    assert command_line_overrides(wanzai, [("values.qixiaodui", 10)]) == {"values.qixiaodui": [10, 10]}
    assert command_line_overrides(wanzai, [("fire", 0.5), ("piao", 1)]) == {"fire": [0.5] * 4, "piao": [1] * 4}
    assert command_line_overrides(wanzai, [("values.qixiaodui[1]", 9)]) == {"values.qixiaodui": [5, 9]}
    assert command_line_overrides(wanzai, [("values.qixiaodui[0]", 3), ("values.qixiaodui[1]", 9)]) == \
        {"values.qixiaodui": [3, 9]}
    assert command_line_overrides(wanzai, [("piao[2]", 2)]) == {"piao": [0, 0, 2, 0]}
    # a list of any length: one value is its only entry
    assert command_line_overrides(anhua, [("instant_win_categories", "qi_wang")]) == \
        {"instant_win_categories": ["qi_wang"]}
    # whole lists, scalars and unknown keys pass as typed (with_overrides checks them)
    assert command_line_overrides(wanzai, [("values.pinghu", [3, 1]), ("base", 2), ("nope", 1)]) == \
        {"values.pinghu": [3, 1], "base": 2, "nope": 1}
    r = wanzai.with_overrides(**command_line_overrides(wanzai, [("values.qixiaodui", 10), ("fire[3]", 0.25)]))
    assert r["values.qixiaodui"] == (10, 10) and r["fire"] == (0, 0, 0, 0.25)
    assert r == wanzai.with_overrides(**{"values.qixiaodui": [10, 10], "fire": [0, 0, 0, 0.25]})


@pytest.mark.parametrize("pairs, message", [
    ([("values.pinghu", [2, 1]), ("values.pinghu", [3, 1])], r"--set values.pinghu given twice \(\[2, 1\] and \[3, 1\]\)"),
    ([("values.qixiaodui[1]", 1), ("values.qixiaodui[1]", 2)], r"--set values.qixiaodui\[1\] given twice"),
    ([("values.qixiaodui", 1), ("values.qixiaodui[1]", 2)],
     r"--set values.qixiaodui and --set values.qixiaodui\[1\] both set values.qixiaodui: give it once"),
    ([("values.qixiaodui[0]", 1), ("values.qixiaodui", 2)],
     r"--set values.qixiaodui\[0\] and --set values.qixiaodui both set values.qixiaodui"),
    ([("values.qixiaodui[2]", 1)], r"key 'values.qixiaodui' has 2 entries, so 'values.qixiaodui\[2\]' names nothing \(0..1\)"),
    ([("base[0]", 1)], r"key 'base' is not a list, so 'base\[0\]' names nothing"),
])
def test_command_line_overrides_refuse_a_key_set_twice_or_a_missing_entry(wanzai, pairs, message):
    from mjsim.rulesets.rules import command_line_overrides

    with pytest.raises((ValueError, RulesError), match=message):
        command_line_overrides(wanzai, pairs)


def test_rules_read_one_entry_of_a_list(wanzai):
    assert wanzai["values.qixiaodui[1]"] == 5 and wanzai["fire[3]"] == 0
    with pytest.raises(KeyError, match="has 2 entries"):
        wanzai["values.qixiaodui[2]"]
    assert wanzai.get("values.nope[0]") is None and "values.qixiaodui[1]" in wanzai


# ---- user files -------------------------------------------------------------------------


def test_user_file_partial_merge(tmp_path, wanzai):
    path = write(tmp_path, "house.toml", 'rules = "wanzai"\nbase = 2\n\n[values]\npinghu = [3, 1]\n')
    r = Rules.load(path)
    assert r.game == "wanzai" and r.name == "house" and r.source == str(path)
    assert r["base"] == 2
    assert r["values.pinghu"] == (3, 1)
    assert r["values.qixiaodui"] == (5, 5)  # table merged key by key
    assert r["kong_values.concealed"] == 2 and r["honor_chow"] is True
    assert r.changes() == {"base": 2, "values.pinghu": [3, 1]}
    assert r == wanzai.with_overrides(base=2, **{"values.pinghu": [3, 1]})
    assert r.variant == f"house-{r.hash[:8]}"
    assert Rules.load(str(path)) == r


def test_user_file_with_overrides(tmp_path):
    path = write(tmp_path, "mine.toml", 'rules = "anhua"\nbirds = 2\n')
    r = Rules.load(path, score_cap=32)
    assert r["birds"] == 2 and r["score_cap"] == 32
    assert r.source == f"{path} + override"
    assert r.name == "mine"


def test_user_file_equal_to_defaults(tmp_path, anhua):
    r = Rules.load(write(tmp_path, "plain.toml", 'rules = "anhua"\n'))
    assert r == anhua and r.hash == anhua.hash
    # only an unchanged shipped set gets a bare name: file names must not collide in partitions
    assert r.variant == "plain-" + anhua.hash[:8]


def test_from_toml_text(anhua):
    r = Rules.from_toml_text('rules = "anhua"\nbirds = 3\n')
    assert r["birds"] == 3 and r.name == "anhua" and r.source == "<text>"
    with pytest.raises(RulesError, match=r"^cli: unknown key 'brids'"):
        Rules.from_toml_text('rules = "anhua"\nbrids = 3\n', source="cli")


# ---- errors -----------------------------------------------------------------------------


def test_error_out_of_range_exact_message(anhua):
    with pytest.raises(RulesError) as info:
        anhua.with_overrides(birds=-1)
    assert str(info.value) == "anhua (shipped) + override: key 'birds': expected an integer 0..10, got -1"
    assert info.value.key == "birds" and info.value.source == "anhua (shipped) + override"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "game, overrides, fragments",
    [
        ("anhua", {"brids": 1}, ["unknown key 'brids'", "did you mean 'birds'?"]),
        ("wanzai", {"values": {"pinhu": [1, 1]}}, ["unknown key 'values.pinhu'", "did you mean 'values.pinghu'?"]),
        ("wanzai", {"values.pinhu": [1, 1]}, ["unknown key 'values.pinhu'", "did you mean 'values.pinghu'?"]),
        ("anhua", {"multipliers.qi_wng": 2}, ["unknown key 'multipliers.qi_wng'", "'multipliers.qi_wang'"]),
        ("wanzai", {"kong_values": {"hidden": 2}}, ["unknown key 'kong_values.hidden'", "added, exposed, concealed"]),
        ("anhua", {"birds.x": 1}, ["unknown key 'birds.x'", "'birds' is not a table"]),
        ("wanzai", {"base": "1"}, ["key 'base'", "expected an integer >= 1", '"1" (a string)']),
        ("wanzai", {"base": 1.0}, ["key 'base'", "1.0 (a float)"]),
        ("anhua", {"birds": True}, ["key 'birds'", "expected an integer 0..10", "true (a boolean)"]),
        ("wanzai", {"fire_min_hands": False}, ["key 'fire_min_hands'", "false (a boolean)"]),
        ("wanzai", {"honor_chow": 1}, ["key 'honor_chow'", "expected a boolean"]),
        ("wanzai", {"fire": [True, 0, 0, 0]}, ["key 'fire[0]'", "a boolean"]),
        ("anhua", {"buzhang_tiles": 7}, ["key 'buzhang_tiles'", "1..6", "got 7"]),
        ("anhua", {"buzhang_tiles": 0}, ["key 'buzhang_tiles'", "1..6", "got 0"]),
        ("wanzai", {"base": 0}, ["key 'base'", ">= 1"]),
        ("wanzai", {"fire_min_hands": 0}, ["key 'fire_min_hands'", ">= 1"]),
        ("anhua", {"score_cap": -1}, ["key 'score_cap'", ">= 0"]),
        ("anhua", {"multipliers": {"qingyise": 0}}, ["key 'multipliers.qingyise'", ">= 1"]),
        ("wanzai", {"fire": [0, 1.5, 0, 0]}, ["key 'fire[1]'", "0..1", "got 1.5"]),
        ("wanzai", {"fire": [0, 2, 0, 0]}, ["key 'fire[1]'", "got 2"]),
        ("wanzai", {"piao": [0, 3, 0, 0]}, ["key 'piao[1]'", "0..2"]),
        ("wanzai", {"values": {"pinghu": [2, -1]}}, ["key 'values.pinghu[1]'", ">= 0"]),
        ("wanzai", {"wall_model": "flt"}, ["key 'wall_model'", 'one of "table", "flat"', '"flat"?']),
        ("wanzai", {"pass_ron_lock": "never"}, ["key 'pass_ron_lock'", '"until_own_discard"', '"none"']),
        ("anhua", {"rob_kong_pays": "both"}, ["key 'rob_kong_pays'", 'one of "all", "one"']),
        ("anhua", {"dealer_on_draw": "loser"}, ["key 'dealer_on_draw'", '"stay", "next", "last_drawer"']),
        ("anhua", {"dealer_next": 1}, ["key 'dealer_next'", '"winner", "next_on_loss"', "(an integer)"]),
        ("anhua", {"instant_win_categories": ["ba_wang"]}, ["key 'instant_win_categories[0]'", '"qi_wang"']),
        ("anhua", {"instant_win_categories": ["si_wang", "si_wang"]}, ["key 'instant_win_categories'", "twice"]),
        ("anhua", {"instant_win_categories": "si_wang"}, ["key 'instant_win_categories'", "a list", "(a string)"]),
        ("wanzai", {"fire": [0, 0, 0]}, ["key 'fire'", "a list of 4 numbers", "got a list of 3"]),
        ("wanzai", {"piao": [0, 0, 0, 0, 0]}, ["key 'piao'", "a list of 4 integers", "got a list of 5"]),
        ("wanzai", {"values.pinghu": [2]}, ["key 'values.pinghu'", "a list of 2 integers", "got a list of 1"]),
        ("wanzai", {"values": 3}, ["key 'values'", "a table", "(an integer)"]),
        ("anhua", {"honor_chow": False}, ["key 'honor_chow' belongs to the wanzai rules", 'rules = "anhua"']),
        ("wanzai", {"birds": 2}, ["key 'birds' belongs to the anhua rules", 'rules = "wanzai"']),
        ("anhua", {"values.pinghu": [1, 1]}, ["key 'values' belongs to the wanzai rules"]),
        ("wanzai", {"rules": "anhua"}, ["key 'rules'", "cannot be changed by an override"]),
    ],
)
def test_override_errors(game, overrides, fragments):
    base = Rules.load(game)
    with pytest.raises(RulesError) as info:
        base.with_overrides(**overrides)
    message = str(info.value)
    assert message.startswith(f"{game} (shipped) + override: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    # load(**overrides) validates the same way
    with pytest.raises(RulesError):
        Rules.load(game, **overrides)


@pytest.mark.parametrize(
    "text, fragments",
    [
        ('rules = "wanzai"\nbrids = 1\n', ["unknown key 'brids'"]),
        ('rules = "anhua"\nbrids = 1\n', ["unknown key 'brids'", "did you mean 'birds'?"]),
        ('rules = "anhua"\nbirds = true\n', ["key 'birds'", "true (a boolean)"]),
        ('rules = "anhua"\nbirds = 11\n', ["key 'birds'", "0..10", "got 11"]),
        ('rules = "wanzai"\nfire = [0, 0]\n', ["key 'fire'", "got a list of 2"]),
        ('rules = "wanzai"\nwall_model = "ring"\n', ["key 'wall_model'", '"table", "flat"']),
        ('rules = "wanzai"\n[multipliers]\nqi_wang = 2\n', ["key 'multipliers' belongs to the anhua rules"]),
        ('rules = "wanzai"\n[values]\npinhu = [1, 1]\n', ["unknown key 'values.pinhu'", "'values.pinghu'"]),
        ("birds = 1\n", ["missing key 'rules'", 'rules = "wanzai"', 'rules = "anhua"']),
        ('rules = "sichuan"\n', ["key 'rules'", 'one of "wanzai", "anhua"', '"sichuan"']),
        ('rules = "wanzai"\nbase = \n', ["invalid TOML"]),
        ('rules = "wanzai"\nbase = 1\nbase = 2\n', ["invalid TOML"]),
    ],
)
def test_file_errors_name_the_file(tmp_path, text, fragments):
    path = write(tmp_path, "my.toml", text)
    with pytest.raises(RulesError) as info:
        Rules.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_missing_file(tmp_path):
    path = tmp_path / "nothere.toml"
    with pytest.raises(RulesError) as info:
        Rules.load(path)
    assert str(path) in str(info.value) and "not found" in str(info.value)


def test_unknown_shipped_name():
    with pytest.raises(RulesError) as info:
        Rules.load("wanzi")
    assert "wanzi" in str(info.value) and "did you mean 'wanzai'?" in str(info.value)


def test_unreadable_path(tmp_path):
    with pytest.raises(RulesError) as info:
        Rules.load(tmp_path)  # a directory
    assert str(tmp_path) in str(info.value) and "cannot read rules file: it is a directory" in str(info.value)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes(b'rules = "wanzai" # \xe9\n')
    with pytest.raises(RulesError) as info:
        Rules.load(path)
    assert str(path) in str(info.value) and "UTF-8" in str(info.value)


# ---- hash, variant, TOML round trip ---------------------------------------------------


def test_hash_equal_for_equal_params(tmp_path, wanzai, anhua):
    assert re.fullmatch(r"[0-9a-f]{12}", wanzai.hash)
    assert Rules.load("wanzai").hash == wanzai.hash
    assert Rules.load(write(tmp_path, "w.toml", 'rules = "wanzai"\nfire = [0, 0, 0, 0]\n')).hash == wanzai.hash
    assert wanzai.hash != anhua.hash
    a = anhua.with_overrides(birds=2)
    b = Rules.from_toml_text('rules = "anhua"\nbirds = 2\n')
    assert a.hash == b.hash and a == b


def test_hash_changes_with_params(wanzai, anhua):
    hashes = {
        wanzai.hash,
        wanzai.with_overrides(base=2).hash,
        wanzai.with_overrides(**{"values.pinghu": [2, 2]}).hash,
        wanzai.with_overrides(fire=[0.5, 0, 0, 0]).hash,
        wanzai.with_overrides(fire=[0, 0.5, 0, 0]).hash,
        anhua.hash,
        anhua.with_overrides(birds=2).hash,
        anhua.with_overrides(instant_win_categories=["qi_wang", "si_wang"]).hash,
    }
    assert len(hashes) == 8


def test_hash_stable_across_processes(wanzai):
    code = "from mjsim.rules import Rules; r = Rules.load('wanzai', base=3); print(r.hash, r.variant)"
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
            cwd=Path(__file__).parent
        )
        outputs.add(done.stdout.strip())
    local = wanzai.with_overrides(base=3)
    assert outputs == {f"{local.hash} {local.variant}"}


def test_variant_naming(wanzai, anhua):
    assert wanzai.variant == "wanzai" and anhua.variant == "anhua"
    r = anhua.with_overrides(birds=2)
    assert r.variant == f"anhua-{r.hash[:8]}"
    assert r.name == "anhua"


@pytest.mark.parametrize(
    "game, overrides",
    [
        ("wanzai", {}),
        ("anhua", {}),
        ("wanzai", {"fire": [0.5, 0, 1, 0.1], "piao": [1, 2, 1, 0], "values.pinghu": [3, 1], "wall_model": "flat"}),
        ("wanzai", {"dealer_pays_double": True, "kong_values": {"added": 0}, "pass_ron_lock": "none"}),
        ("anhua", {"instant_win_categories": [], "birds": 0, "multipliers.qi_wang": 32, "score_cap": 64}),
        ("anhua", {"instant_win_categories": ["dan_wang", "liu_wang"], "multiple_ron": True}),
    ],
)
def test_to_toml_round_trip(game, overrides):
    r = Rules.load(game, **overrides)
    text = r.to_toml()
    back = Rules.from_toml_text(text)
    assert back == r and back.hash == r.hash and back.as_dict() == r.as_dict()
    assert tomllib.loads(text) == r.as_dict()  # complete: every parameter written
    assert back.to_toml() == text


# ---- immutability, hashability, pickling ----------------------------------------------


def test_immutable(anhua):
    with pytest.raises(AttributeError):
        anhua.game = "wanzai"
    with pytest.raises(AttributeError):
        anhua.hash = "0" * 12
    with pytest.raises(AttributeError):
        anhua.other = 1
    with pytest.raises(AttributeError):
        del anhua.name
    with pytest.raises(TypeError):
        anhua.params["birds"] = 2
    with pytest.raises(TypeError):
        anhua.params["multipliers"]["qi_wang"] = 1
    assert isinstance(anhua["instant_win_categories"], tuple)
    d = anhua.as_dict()
    d["birds"] = 5
    d["multipliers"]["qi_wang"] = 1
    assert anhua["birds"] == 1 and anhua["multipliers.qi_wang"] == 16


def test_hashable(wanzai, anhua):
    seen = {wanzai, anhua, Rules.load("wanzai"), Rules.load("anhua"), anhua.with_overrides(birds=2)}
    assert len(seen) == 3
    table = {wanzai: "w", anhua: "a"}
    assert table[Rules.load("wanzai")] == "w"
    assert table[anhua.with_overrides(birds=2).with_overrides(birds=1)] == "a"
    assert wanzai != anhua and wanzai != "wanzai"


def test_pickle_and_copy(anhua):
    r = anhua.with_overrides(birds=2)
    back = pickle.loads(pickle.dumps(r))
    assert back == r and back.variant == r.variant and back.name == r.name and back.source == r.source
    assert copy.copy(r) is r and copy.deepcopy(r) is r


def test_repr_is_short(anhua):
    text = repr(anhua.with_overrides(birds=2))
    assert text.startswith("Rules(") and "anhua-" in text and len(text) < 100


# ---- parameters of this round (RULES §1 Sessions, Units and bounds; §2.2; §3.3; §3.4) ---


@pytest.mark.parametrize("game,key,bad,allowed", [
    ("wanzai", "first_dealer", 4, 'a seat 0..3 or "random"'),
    ("anhua", "first_dealer", "dealer", 'a seat 0..3 or "random"'),
    ("anhua", "first_dealer", True, 'a seat 0..3 or "random"'),
    ("wanzai", "quanqiuren_self", "self", '"pinghu", "quanqiuren"'),
    ("anhua", "discard_win_wilds", "dan_wang", '"dan_wang_face_value", "none", "face_value"'),
    ("anhua", "added_kong_on_draw_only", "yes", "a boolean"),
])
def test_new_parameters_are_validated(tmp_path, game, key, bad, allowed):
    value = bad if not isinstance(bad, str) else f'"{bad}"'
    path = write(tmp_path, "house.toml", f'rules = "{game}"\n{key} = {str(value).lower() if isinstance(bad, bool) else value}\n')
    with pytest.raises(RulesError) as err:
        Rules.load(path)
    assert str(path) in str(err.value) and f"'{key}'" in str(err.value) and allowed in str(err.value)
    assert err.value.key == key


@pytest.mark.parametrize("game,key,values", [
    ("wanzai", "first_dealer", [0, 1, 2, 3, "random"]),
    ("anhua", "first_dealer", [0, 3, "random"]),
    ("wanzai", "quanqiuren_self", ["pinghu", "quanqiuren"]),
    ("anhua", "discard_win_wilds", ["dan_wang_face_value", "none", "face_value"]),
    ("anhua", "added_kong_on_draw_only", [True, False]),
])
def test_new_parameters_accept_every_allowed_value(game, key, values):
    for v in values:
        assert Rules.load(game, **{key: v})[key] == v
    assert "quanqiuren_self" not in SCHEMA["anhua"] and "discard_win_wilds" not in SCHEMA["wanzai"]


@pytest.mark.parametrize("game,overrides,key", [
    ("wanzai", {"base": 2147483647}, "base"),
    ("wanzai", {"base": 1_000_000_000}, "base"),
    ("wanzai", {"values.pinghu": [300_000_000, 1], "fire": [0.1, 0.1, 0, 0], "dealer_pays_double": True}, "values.pinghu"),
    ("wanzai", {"kong_values.concealed": 600_000_000, "fire": [0.1, 0.1, 0, 0]}, "kong_values.concealed"),
    ("wanzai", {"values.pinghu": [3_000_000_000, 1]}, "values.pinghu"),
    ("anhua", {"base": 10_000_000}, "base"),
    ("anhua", {"multipliers.qi_wang": 2**25, "birds": 3}, "multipliers.qi_wang"),
    ("anhua", {"instant_win_score": 2**31}, "instant_win_score"),
])
def test_a_rule_set_whose_largest_payment_overflows_32_bits_is_refused(game, overrides, key):
    with pytest.raises(RulesError, match="32-bit") as err:
        Rules.load(game, **overrides)
    assert err.value.key == key and f"'{key}'" in str(err.value)


def test_largest_payment_is_exact_at_the_boundary():
    from mjsim.rulesets.rules import PAYMENT_LIMIT, largest_payment

    # Wanzai: 40 x base, no fire/piao/dealer doubling: base = floor(limit / 40) is the largest allowed
    b = PAYMENT_LIMIT // 40
    assert largest_payment(Rules.load("wanzai", base=b).as_dict(), "wanzai")[0] == 40 * b
    with pytest.raises(RulesError):
        Rules.load("wanzai", base=b + 1)
    # fire on two seats (2^2), dealer doubling (x2) and piao 2+2 (x base) enter the bound
    r = Rules.load("wanzai", fire=[0.5, 0.5, 0, 0], dealer_pays_double=True, piao=[2, 2, 0, 0], base=1000)
    assert largest_payment(r.as_dict(), "wanzai")[0] == 40 * 1000 * 4 * 2 + 4 * 1000
    # fire on one seat only: at most 2^1
    r = Rules.load("wanzai", fire=[0.5, 0, 0, 0])
    assert largest_payment(r.as_dict(), "wanzai")[0] == 80
    # Anhua: 七王 16 x 清一色 2 x 小七對 2 x a context 2, times 2^birds; a cap bounds it
    assert largest_payment(Rules.load("anhua").as_dict(), "anhua")[0] == 16 * 2 * 2 * 2 * 2
    # the cap is in units of base, as every amount (RULES §1): 100 x base 10,000 caps at 1,000,000
    r = Rules.load("anhua", base=10_000, score_cap=100)
    assert largest_payment(r.as_dict(), "anhua")[0] == 1_000_000


def test_cli_refuses_an_overflowing_base_in_one_line():
    out = subprocess.run([sys.executable, "-m", "mjsim.cli", "hand", "--set", "base=2147483647", "147m258p9s1234567z"],
                         capture_output=True, text=True)
    assert out.returncode == 2, out
    text = (out.stdout + out.stderr).strip()
    assert "base" in text and "32-bit" in text and "Traceback" not in text and len(text.splitlines()) == 1

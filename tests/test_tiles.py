"""Tile notation: the table-driven formatter against a deliberately simple one, and the
errors bad kinds raise."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjsim.tiles import TileError, format_tiles, parse_tiles

SUIT_CHARS = "萬筒索"
CHINESE_RANKS = "一二三四五六七八九"
HONOURS = "東南西北中發白"


def reference(kinds, chinese=False, sort=True):
    """One tile at a time: check it, name it, write the suit letter when the suit changes."""
    ks = sorted(kinds) if sort else list(kinds)
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TileError(f"a tile kind is an integer 0..33, got {k!r}")
        if not 0 <= k <= 33:
            raise TileError(f"tile kind {k} is out of range 0..33")
    if chinese:
        return "".join(HONOURS[k - 27] if k >= 27 else CHINESE_RANKS[k % 9] + SUIT_CHARS[k // 9] for k in ks)
    out = ""
    for i, k in enumerate(ks):
        suit = "mpsz"[min(k // 9, 3)]
        out += str(k % 9 + 1) if k < 27 else str(k - 26)
        if i + 1 == len(ks) or "mpsz"[min(ks[i + 1] // 9, 3)] != suit:
            out += suit
    return out


kind_lists = st.lists(st.integers(0, 33), max_size=140)


@settings(max_examples=400, deadline=None)
@given(kind_lists, st.booleans(), st.booleans())
def test_format_equals_reference(ks, chinese, sort):
    assert format_tiles(ks, chinese=chinese, sort=sort) == reference(ks, chinese, sort)


@settings(max_examples=200, deadline=None)
@given(kind_lists, st.booleans())
def test_round_trip(ks, sort):
    text = format_tiles(ks, sort=sort)
    assert parse_tiles(text) == (sorted(ks) if sort else ks)
    assert parse_tiles(format_tiles(ks, chinese=True, sort=sort)) == (sorted(ks) if sort else ks)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 40), st.sampled_from([True, False, 2.0, "1m", np.int64(5), np.int8(-1),
                                                                   np.uint8(33), np.int32(34), 2**70])),
                max_size=12),
       st.booleans())
def test_bad_kinds_raise_as_the_reference(ks, chinese):
    # unsorted: sorting a mixed list raises its own TypeError in both
    try:
        want = reference(ks, chinese, sort=False)
    except TileError as e:
        with pytest.raises(TileError) as got:
            format_tiles(ks, chinese=chinese, sort=False)
        assert str(got.value) == str(e)
    else:
        assert format_tiles(ks, chinese=chinese, sort=False) == want


@pytest.mark.parametrize("kinds, sort, message", [
    ([0, 34], True, "tile kind 34 is out of range 0..33"),
    ([-1], True, "tile kind -1 is out of range 0..33"),
    ([1.0], True, "a tile kind is an integer 0..33, got 1.0"),
    (["1m"], True, "a tile kind is an integer 0..33, got '1m'"),
    ([True], True, "a tile kind is an integer 0..33, got True"),
    ([0, 2, "x"], False, "a tile kind is an integer 0..33, got 'x'"),
    ([np.int64(3), 40], True, "tile kind 40 is out of range 0..33"),
    ([np.int8(-2)], True, "tile kind -2 is out of range 0..33"),
    ([2**70], True, "tile kind 1180591620717411303424 is out of range 0..33"),
    ([3, 300, 1], False, "tile kind 300 is out of range 0..33"),
])
@pytest.mark.parametrize("chinese", [False, True])
def test_error_messages(kinds, sort, message, chinese):
    with pytest.raises(TileError, match="^" + message.replace(".", r"\.").replace("(", r"\(") + "$"):
        format_tiles(kinds, chinese=chinese, sort=sort)


def test_other_inputs():
    assert format_tiles([np.int64(3), np.int32(33), 0]) == "14m7z"
    assert format_tiles(np.array([3, 1, 2])) == "234m"
    assert format_tiles(range(5)) == "12345m"
    assert format_tiles(x for x in [5, 3]) == "46m"
    assert format_tiles([]) == format_tiles([], chinese=True) == ""
    assert format_tiles(np.array([3, 1, 2], dtype=np.uint8), chinese=True) == "二萬三萬四萬"
    assert format_tiles([27, 0, 9, 18, 33], sort=False) == "1z1m1p1s7z"
    assert format_tiles(b"\x01\x00") == "12m"
    with pytest.raises(TypeError):
        format_tiles([0, None])
    with pytest.raises(TypeError):
        format_tiles(5)


def test_simplified_characters_parse_as_the_traditional_ones():
    """RULES §1 accepts simplified characters (万 条 东 发 ...) beside the traditional ones."""
    simplified = parse_tiles("一二三万东南西发五条")
    assert simplified == parse_tiles("一二三萬東南西發五條") == [0, 1, 2, 27, 28, 29, 32, 22]

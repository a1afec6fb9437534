"""The mask pass (issue 8: necessary/unnecessary-tile masks in the group tables) against
shanten_neighbours, the one-kind-at-a-time path the greedy player used before.

For a 3n+2 hand the pass gives the shanten after each discard and, for every discard that
keeps it, the draws that would then lower it; for a 3n+1 hand the draws that lower it.
Each answer must equal what shanten_neighbours(-1) / shanten_neighbours(+1) of the hand
(or of the hand without the discard) says, on random, one-off and complete hands, with and
without declared melds and Anhua wilds.  A hand the pass leaves to shanten_neighbours
(None) is allowed, but must stay rare, or the greedy player would not get faster.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mjsim
from handgen import HandGen
from mjsim import _core
from mjsim.play import engine

RULES = {"wanzai": mjsim.Rules.load("wanzai"), "anhua": mjsim.Rules.load("anhua")}
VARIANTS = [("wanzai", True), ("anhua", True), ("anhua", False)]


def _config(game, pair_258):
    rules = RULES[game]
    if game == "anhua":
        rules = rules.with_overrides(pair_258=pair_258)
    return engine.core_config(rules)


def _info(game, h):
    return engine.meld_info(engine.parse_melds(game, h["melds"]))


def _lowering(cfg, counts, info, ind):
    """Kinds whose draw lowers the shanten of a 3n+1 hand, by shanten_neighbours(+1)."""
    sh, after = _core.shanten_neighbours_hand(cfg, counts, info, ind, 1)
    return sh, [j for j in range(34) if after[j] < sh]


def _check_discards(cfg, h, info, ind):
    """-> True if the pass answered the hand (and every answer matched)."""
    got = _core.mask_scan_hand(cfg, h["counts"], info, ind)
    if got is None:
        return False
    sh, after, useful = got
    want_sh, want_after = _core.shanten_neighbours_hand(cfg, h["counts"], info, ind, -1)
    assert sh == want_sh, h
    # greedy_call takes the hand's shanten from this pass (no separate shanten() call)
    assert sh == _core.shanten_hand(cfg, h["counts"], info, ind), h
    assert after == want_after, h
    for k, kinds in useful.items():
        assert after[k] == sh, (h, k)      # only discards that keep the shanten are answered
        c = list(h["counts"])
        c[k] -= 1
        assert (after[k], kinds) == _lowering(cfg, c, info, ind), (h, k)
    return True


def _check_draws(cfg, h, info, ind):
    got = _core.useful_mask_hand(cfg, h["counts"], info, ind)
    if got is None:
        return False
    assert got == _lowering(cfg, h["counts"], info, ind), h
    return True


@pytest.mark.parametrize("game,pair_258", VARIANTS)
def test_discards_and_their_draws_match_shanten_neighbours(game, pair_258):
    cfg = _config(game, pair_258)
    gen = HandGen(game, seed=808 + pair_258)
    answered = answered_useful = 0
    n = 6_000
    for _ in range(n):
        h = gen.hand()
        ind = -1 if h["indicator"] is None else h["indicator"]
        info = _info(game, h)
        if _check_discards(cfg, h, info, ind):
            answered += 1
        if game == "anhua" and _check_discards(cfg, h, info, -1):   # face value, as greedy asks
            answered_useful += 1
    assert answered > 0.97 * n
    if game == "anhua":
        assert answered_useful > 0.97 * n


@pytest.mark.parametrize("game,pair_258", VARIANTS)
def test_draws_of_a_waiting_hand_match_shanten_neighbours(game, pair_258):
    cfg = _config(game, pair_258)
    gen = HandGen(game, seed=909 + pair_258)
    answered = 0
    n = 6_000
    for _ in range(n):
        h = gen.hand(size_offset=-1)
        ind = -1 if h["indicator"] is None else h["indicator"]
        answered += _check_draws(cfg, h, _info(game, h), ind)
    assert answered > 0.97 * n


def _walk(game, seed, steps):
    """Hands along a random draw/discard walk from a dealt hand (no melds): the early,
    scattered hands and the 十三爛 / seven-pairs shapes the generator's hands are short of."""
    import random

    rng = random.Random(seed)
    n_kinds = 34 if game == "wanzai" else 27
    wall = [k for k in range(n_kinds) for _ in range(4)]
    rng.shuffle(wall)
    hand = [0] * 34
    for k in wall[:13]:
        hand[k] += 1
    pos = 13
    for _ in range(steps):
        hand[wall[pos]] += 1
        pos += 1
        yield list(hand)
        held = [k for k in range(34) if hand[k]]
        hand[rng.choice(held)] -= 1
        if pos >= len(wall):
            return


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(VARIANTS),
       indicator=st.integers(-1, 26))
def test_mask_pass_on_walked_hands(seed, variant, indicator):
    game, pair_258 = variant
    cfg = _config(game, pair_258)
    ind = indicator if game == "anhua" else -1
    info = engine.meld_info([])
    for counts in _walk(game, seed, 40):
        if ind >= 0 and counts[ind] == 4:
            continue                        # only three copies of the indicator's kind
        h = dict(counts=counts)
        _check_discards(cfg, h, info, ind)
        for k in range(34):
            if counts[k]:
                c = list(counts)
                c[k] -= 1
                _check_draws(cfg, dict(counts=c), info, ind)
                break

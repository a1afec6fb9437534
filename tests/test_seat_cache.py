"""The hand loop's per-seat cache (_seat.pxd) against a recomputation.

A debug build (MJSIM_DEBUG=1) checks every seat's cache and every cached answer against
the evaluator at each use, so every game the test suite plays checks it; this file shows
that a hand change that bypasses the cache is caught."""
import random
import subprocess
import sys

import pytest

from mjsim.core import _testing


@pytest.mark.skipif(not _testing.SEAT_CHECKS, reason="the seat checks are compiled into debug builds only")
def test_a_change_behind_the_cache_aborts_a_debug_build():
    proc = subprocess.run([sys.executable, "-c", "from mjsim.core import _testing; _testing._probe_stale_seat()"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "seat 0's cached state is stale" in proc.stderr


def test_the_probe_sees_the_stale_cache_without_checks():
    if _testing.SEAT_CHECKS:
        pytest.skip("a debug build aborts instead (the test above)")
    # 1-9m + 1-4p was dealt, tenpai on 1p/4p; the hand now holds 5p for 4p, which the cache
    # does not know: it still answers for the dealt hand
    assert _testing._probe_stale_seat() is True


def _walk(rng, steps):
    """A random sequence of single-tile changes keeping every count in 0..4, and the hand
    after each."""
    hand = [0] * 34
    changes, hands = [], []
    for _ in range(steps):
        k = rng.randrange(34)
        d = 1 if hand[k] == 0 or (hand[k] < 4 and rng.random() < 0.55) else -1
        hand[k] += d
        changes.append((k, d))
        hands.append(list(hand))
    return changes, hands


def _has_chow(hand, t, honor_chow):
    """Whether two other held tiles make a run with t (RULES §2.1), from the counts."""
    if t < 27:
        lo = t - t % 9
        return any(all(hand[x] for x in (a, a + 1, a + 2) if x != t)
                   for a in range(max(lo, t - 2), min(t, lo + 6) + 1))
    if not honor_chow:
        return False
    family = range(27, 31) if t <= 30 else range(31, 34)
    return sum(1 for x in family if x != t and hand[x]) >= 2


@pytest.mark.parametrize("honor_chow", [True, False])
def test_held_count_and_chow_test_follow_every_change(honor_chow):
    # n_held (random's discard count) and seat_may_chow (the claim shortcut: "no" must mean
    # list_calls offers no chow) after every change of long random walks
    rng = random.Random(8 + honor_chow)
    for _ in range(20):
        changes, hands = _walk(rng, 200)
        for (n_held, may, listed), hand in zip(_testing._probe_seat_cache(changes, honor_chow), hands):
            assert n_held == sum(1 for c in hand if c)
            expected = [t for t in range(34) if _has_chow(hand, t, honor_chow)]
            assert may == expected
            assert listed == expected


def test_the_cache_probe_refuses_an_impossible_count():
    with pytest.raises(ValueError):
        _testing._probe_seat_cache([(3, -1)])


def _group_is(counts, melds, pair, lo=0):
    """Can the counts be split into exactly `melds` melds (runs within the group when it is
    a suit, so ranks count) and `pair` pairs?  A plain recursive search."""
    suit = len(counts) == 9
    c = list(counts)
    i = next((k for k in range(len(c)) if c[k]), None)
    if i is None:
        return melds == 0 and pair == 0
    options = []
    if c[i] >= 3 and melds:
        options.append(([i] * 3, 1, 0))
    if suit and i + 2 < 9 and c[i + 1] and c[i + 2] and melds:
        options.append(([i, i + 1, i + 2], 1, 0))
    if c[i] >= 2 and pair:
        options.append(([i] * 2, 0, 1))
    for tiles, m, p in options:
        for k in tiles:
            c[k] -= 1
        ok = _group_is(tuple(c), melds - m, pair - p)
        for k in tiles:
            c[k] += 1
        if ok:
            return True
    return False


def test_the_tables_facts_byte_states_each_groups_facts():
    """The facts byte the seat cache reads per group (_tables.pxd): exactly melds, melds and
    a pair, melds and a 2/5/8 pair (suits), a group of distinct kinds 十三爛 can use whole,
    not empty -- against a plain search on random groups."""
    rng = random.Random(31)
    for _ in range(3000):
        suit = rng.random() < 0.7
        n_kinds = 9 if suit else 7
        counts = [0] * n_kinds
        for _ in range(rng.randrange(15)):
            k = rng.randrange(n_kinds)
            if counts[k] < 4:
                counts[k] += 1
        n = sum(counts)
        facts, need = _testing.entry_facts(suit, counts)
        assert bool(facts & 1) == (need[0] == 0)
        assert bool(facts & 2) == (need[1] == 0)
        assert bool(facts & 4) == (need[2] == 0)
        assert bool(facts & 8) == (need[3] == n)
        assert bool(facts & 16) == (n > 0)
        if suit:
            # runs and pungs only: what a suit group of the standard form is made of
            assert bool(facts & 1) == (n % 3 == 0 and _group_is(counts, n // 3, 0))
            assert bool(facts & 2) == (n % 3 == 2 and _group_is(counts, n // 3, 1))
            distinct = all(c <= 1 for c in counts)
            gaps_ok = all(b - a >= 3 for a, b in zip([k for k in range(9) if counts[k]],
                                                      [k for k in range(9) if counts[k]][1:]))
            assert bool(facts & 8) == (distinct and gaps_ok)
        else:
            assert bool(facts & 8) == all(c <= 1 for c in counts)


def test_the_random_discards_select_agrees_with_the_plain_loops():
    # the select behind random's discard: pdep where the CPU has a fast one (chosen at run
    # time), else the count-down loop; both against clearing the lowest bits one by one
    rng = random.Random(5)
    for _ in range(5000):
        x = rng.getrandbits(34) | (1 << rng.randrange(34))
        j = rng.randrange(bin(x).count("1"))
        fast, loop, plain = _testing._probe_select(x, j)
        assert fast == loop == plain == [k for k in range(34) if x >> k & 1][j]
    with pytest.raises(ValueError):
        _testing._probe_select(0b1011, 3)


@pytest.mark.skipif(not _testing.SEAT_CHECKS, reason="the seat checks are compiled into debug builds only")
def test_the_cache_follows_anhua_without_the_258_pair_rule():
    # pair_258 = false (RULES §3): the seat cache's completion facts then take any pair; a
    # debug build checks each of its answers against _eval, so a wrong fact aborts the run
    code = """
from mjsim import Rules
from mjsim.play import game
base = Rules.load("anhua")
for players in (("random",) * 4, ("greedy",) * 4):
    loose, strict = (game.chunk_digest(base.with_overrides(pair_258=v), players, 3, 0, 300) for v in (False, True))
    assert loose != strict, players
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "ok"

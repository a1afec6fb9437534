"""The hand loop's per-seat cache (_seat.pxd) against a recomputation.

A debug build (MJSIM_DEBUG=1) checks every seat's cache and every cached answer against
the evaluator at each use, so every game the test suite plays checks it; this file shows
that a hand change that bypasses the cache is caught."""
import random
import subprocess
import sys

import pytest

from mjsim import _game


@pytest.mark.skipif(not _game.SEAT_CHECKS, reason="the seat checks are compiled into debug builds only")
def test_a_change_behind_the_cache_aborts_a_debug_build():
    proc = subprocess.run([sys.executable, "-c", "from mjsim import _game; _game._probe_stale_seat()"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "seat 0's cached state is stale" in proc.stderr


def test_the_probe_sees_the_stale_cache_without_checks():
    if _game.SEAT_CHECKS:
        pytest.skip("a debug build aborts instead (the test above)")
    # 1-9m + 1-4p was dealt, tenpai on 1p/4p; the hand now holds 5p for 4p, which the cache
    # does not know: it still answers for the dealt hand
    assert _game._probe_stale_seat() is True


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
        for (n_held, may, listed), hand in zip(_game._probe_seat_cache(changes, honor_chow), hands):
            assert n_held == sum(1 for c in hand if c)
            expected = [t for t in range(34) if _has_chow(hand, t, honor_chow)]
            assert may == expected
            assert listed == expected


def test_the_cache_probe_refuses_an_impossible_count():
    with pytest.raises(ValueError):
        _game._probe_seat_cache([(3, -1)])

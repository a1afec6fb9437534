"""The hand loop's per-seat cache (_seat.pxd) against a recomputation.

A debug build (MJSIM_DEBUG=1) checks every seat's cache and every cached answer against
the evaluator at each use, so every game the test suite plays checks it; this file shows
that a hand change that bypasses the cache is caught."""
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

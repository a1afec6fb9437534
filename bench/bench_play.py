"""Cost of one `mjsim.game.play` call from a Python loop (issue 8 item 5).

    python bench/bench_play.py [--hands 2000] [--repeats 5]

Prints the median over repeats of the microseconds per call, for 4x random and 4x greedy,
with and without the event log, beside the batch loop's microseconds per hand
(`game.simulate_hands`) on the same hands: the difference is what one call costs on top of
playing the hand.
"""
from __future__ import annotations

import argparse
import statistics
import time

from mjsim import Rules, game


def per_call_us(fn, n: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    rules = Rules.load("wanzai")
    n = a.hands
    for player in ("random", "greedy"):
        players = (player,) * 4
        game.play(rules, players=players, log=False)         # tables built, game cached
        batch = per_call_us(lambda: game.simulate_hands(rules, 1, 0, n, players), n, a.repeats)
        for log in (False, True):
            us = per_call_us(lambda: [game.play(rules, 1, i, players, log=log) for i in range(n)], n, a.repeats)
            print(f"4x{player:<7} log={log!s:<5}  {us:8.1f} us per play() call   "
                  f"(batch loop {batch:.1f} us per hand)")


if __name__ == "__main__":
    main()
